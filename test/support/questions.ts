/** The one-question set the CLI and askUser tests ask: a single choice between two regions. */
export const regionQuestion = {
  question: 'Which region should we deploy to?',
  header: 'Region',
  options: [
    { label: 'Europe', description: 'Frankfurt' },
    { label: 'United States', description: 'Virginia' },
  ],
};
