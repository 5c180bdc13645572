/** Where the session state reads the time and new ids: workflow time and deterministic ids in a workflow, plain ones in tests. */
export interface StateClock {
  now(): Date;
  newId(): string;
}
