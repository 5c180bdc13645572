/** What an interrupted turn ended, for its notice. */
export interface InterruptionSummary {
  turn: number;
  modelCallCancelled: boolean;
  toolCallsCancelled: readonly string[];
  /** Tool calls of a reply that came in the interrupt's activation: its text is kept, these were never made. */
  toolCallsDropped: readonly string[];
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
    (dropped.length > 0 ? ` The model's last reply was kept, but the tool calls it asked for were not made: ${dropped.join(', ')}.` : '') +
    (summary.subAgentsKeepRunning ? ' Sub-agents keep running.' : '')
  );
}
