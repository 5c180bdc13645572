/** What an interrupted turn ended, for its notice. */
export interface InterruptionSummary {
  turn: number;
  modelCallCancelled: boolean;
  toolCallsCancelled: readonly string[];
  /** Tool calls of a reply that came in the interrupt's activation: its text is kept, these were never made. */
  toolCallsDropped: readonly string[];
  /** Tool calls that cannot be cancelled where they run: the turn waited for them, and their results are kept. */
  toolCallsWaitedFor: readonly string[];
  subAgentsStopped: number;
  subAgentsKeepRunning: boolean;
}

/** The transcript's notice of an interrupted turn: what was cancelled, what was not made, what goes on. */
export function interruptionNotice(summary: InterruptionSummary): string {
  const cancelled = [
    ...(summary.modelCallCancelled ? ['the model call'] : []),
    ...summary.toolCallsCancelled.map((name) => `the ${name} call`),
    ...(summary.subAgentsStopped > 0 ? [`${summary.subAgentsStopped} sub-agent(s)`] : []),
  ];
  const dropped = summary.toolCallsDropped;
  return (
    `Turn ${summary.turn} was interrupted by a new message` +
    (cancelled.length > 0 ? `; cancelled ${cancelled.join(', ')}.` : '.') +
    waitedFor(summary.toolCallsWaitedFor) +
    (dropped.length > 0 ? ` The model's last reply was kept, but the tool calls it asked for were not made: ${dropped.join(', ')}.` : '') +
    (summary.subAgentsKeepRunning ? ' Sub-agents keep running.' : '')
  );
}

function waitedFor(names: readonly string[]): string {
  if (names.length === 0) return '';
  const calls = names.map((name) => `the ${name} call`).join(', ');
  return names.length === 1
    ? ` Waited for ${calls} to finish and kept its result (its tool cannot be cancelled).`
    : ` Waited for ${calls} to finish and kept their results (their tools cannot be cancelled).`;
}
