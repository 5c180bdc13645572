/** What the question set of an approval records about the call it asks for. */
export interface ApprovalRequest {
  tool_name: string;
  tool_call_id: string;
  /** The model's arguments as JSON text, shortened for display. */
  arguments: string;
}
