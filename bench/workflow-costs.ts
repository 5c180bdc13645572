/**
 * Issue 32: what one sub-agent's life costs the workflow thread, in counts rather than time (so it reads the same on a
 * loaded machine): the promises workflow code creates in each run (each one costs a stack trace in the SDK's promise
 * hook, which cannot be turned off), and the modules a new workflow evaluates (the bundle's modules not preloaded are
 * evaluated again for each workflow), with the mean time of creating a workflow for information.
 * A root session gets a message, starts one async sub-agent (no tools) that answers at once, and reads its report; the
 * worker runs in this thread (`debugMode`, the same reusable V8 context as a normal worker), so a wrapper around the
 * SDK's own promise hook can count the promises it sees created in a workflow context, by run.
 *   npx tsx bench/workflow-costs.ts [sessions, default 3] [--stacks root|child]
 * `--stacks` prints, for the last session, where the promises of the root or of the sub-agent were created.
 */
import { createRequire } from 'node:module';
import v8 from 'node:v8';

const sessions = Number(process.argv[2] ?? 3);
const stacksOf = process.argv.includes('--stacks') ? process.argv[process.argv.indexOf('--stacks') + 1] : undefined;

const promisesByRun = new Map<string, number>();
const stacksByRun = new Map<string, string[]>();
// Installed before the worker's package loads, so the SDK's hook is created through it.
const createHook = v8.promiseHooks.createHook.bind(v8.promiseHooks);
(v8.promiseHooks as { createHook: typeof createHook }).createHook = (hooks) =>
  createHook({
    ...hooks,
    init: (promise, parent) => {
      hooks.init?.(promise, parent);
      // The SDK's hook marks each promise created in a workflow context with its run's id.
      const runId = (promise as { runId?: string }).runId;
      if (!runId) return;
      promisesByRun.set(runId, (promisesByRun.get(runId) ?? 0) + 1);
      if (stacksOf) {
        const frames = (new Error().stack ?? '')
          .split('\n')
          .slice(3, 7)
          .map((line) => line.trim().replace(/\(.*\//, '('));
        stacksByRun.set(runId, [...(stacksByRun.get(runId) ?? []), frames.join(' < ')]);
      }
    },
  });

const creations: Array<{ ms: number; modules: number }> = [];
const { ReusableVMWorkflowCreator } = createRequire(import.meta.url)('@temporalio/worker/lib/workflow/reusable-vm.js') as {
  ReusableVMWorkflowCreator: {
    prototype: { createWorkflow(options: unknown): Promise<{ activator: { moduleCache: Map<string, unknown> } }> };
  };
};
const createWorkflow = ReusableVMWorkflowCreator.prototype.createWorkflow;
ReusableVMWorkflowCreator.prototype.createWorkflow = async function (this: unknown, options: unknown) {
  const started = performance.now();
  const workflow = await createWorkflow.call(this, options);
  creations.push({ ms: performance.now() - started, modules: workflow.activator.moduleCache.size });
  return workflow;
};

const { createTestArbor, ScriptedModel, text, toolCall } = await import('../src/testing.js');
const model = new ScriptedModel();
const arbor = await createTestArbor({ model, modelName: 'bench-model', waitTimeoutMs: 60_000, workerOptions: { debugMode: true } });
const perSession: Array<{ root: number; sub_agent: number }> = [];
try {
  for (let index = 0; index < sessions; index++) {
    const instruction = `root ${index}`;
    const task = `sub-agent of ${index}`;
    model.forInstruction(
      instruction,
      toolCall('subAgent', { title: 'one', instruction: task, mode: 'async', tools: [] }),
      text('Started.'),
      text('Read.'),
    );
    model.forInstruction(task, text('Reported.'));
    promisesByRun.clear();
    stacksByRun.clear();
    const session = await arbor.startSession({ profile: 'all', instruction });
    await arbor.settle(session);
    const rootRun = (await arbor.env.client.workflow.getHandle(session.id).describe()).runId;
    const subAgent = [...promisesByRun].filter(([runId]) => runId !== rootRun).reduce((sum, [, count]) => sum + count, 0);
    perSession.push({ root: promisesByRun.get(rootRun) ?? 0, sub_agent: subAgent });
    if (stacksOf && index === sessions - 1) {
      const tally = new Map<string, number>();
      for (const [runId, stacks] of stacksByRun)
        if ((runId === rootRun) === (stacksOf === 'root')) for (const stack of stacks) tally.set(stack, (tally.get(stack) ?? 0) + 1);
      for (const [stack, count] of [...tally].sort((a, b) => b[1] - a[1])) console.log(count, stack);
    }
  }
} finally {
  await arbor.teardown();
}
// The first two workflows (the first session's) warm the context up.
const warm = creations.slice(2);
console.log('promises created per run:', JSON.stringify(perSession));
console.log(
  `modules evaluated per new workflow: ${[...new Set(warm.map((creation) => creation.modules))].join(', ')}; ` +
    `creating a workflow: ${(warm.reduce((sum, creation) => sum + creation.ms, 0) / Math.max(1, warm.length)).toFixed(2)} ms on average (${warm.length} workflows)`,
);
