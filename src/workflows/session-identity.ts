/** Who a session is and where it sits in its tree, fixed when it starts. */
export interface SessionIdentity {
  session_id: string;
  owner: string;
  title: string;
  parent_session_id: string | null;
  root_session_id: string;
  ancestor_session_ids: string[];
  depth: number;
  mode: 'async' | 'sync' | null;
}
