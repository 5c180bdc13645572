/** A failure the model should read and correct; returned to it as the tool's result, never thrown out of the turn. */
export class ToolError extends Error {
  override readonly name = 'ToolError';
}
