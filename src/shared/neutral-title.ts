/** What a session's static summary and ArborTitle search attribute hold when titles are kept out of Temporal's visible fields. */
export const neutralTitle = 'Arbor session';
