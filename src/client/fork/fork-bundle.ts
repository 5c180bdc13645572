import { workflowCodeBundledOnce } from '../../worker/bundle-once.js';
import { prebuiltWorkflowBundlePath, rememberedWorkflowBundlePath } from '../../worker/workflow-code.js';

/**
 * The workflow bundle a fork replays with: Arbor's own (its fork probe is part of the session workflow), the one a
 * worker of this process was given, else the package's prebuilt one, else bundled once per process.
 */
export async function forkBundlePath(): Promise<string> {
  return rememberedWorkflowBundlePath() ?? prebuiltWorkflowBundlePath() ?? workflowCodeBundledOnce();
}
