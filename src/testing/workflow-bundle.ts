import { workflowCodeBundledOnce } from '../worker/bundle-once.js';
import { prebuiltWorkflowBundlePath } from '../worker/workflow-code.js';

/** The workflow bundle's path: given, the package's prebuilt one, or Arbor's workflow code bundled once per process. */
export async function workflowBundlePath(given?: string): Promise<string> {
  return given ?? prebuiltWorkflowBundlePath() ?? workflowCodeBundledOnce();
}
