import type { ToolArgs } from '../../shared/tools/define-tool.js';
import type { planWrite } from '../../shared/tools/plan.js';
import type { ToolContext } from './tool-context.js';

export function writePlan(args: ToolArgs<typeof planWrite>, { state }: ToolContext): string {
  const revision = (state.plan?.revision ?? 0) + 1;
  if (args.content === '') {
    state.setPlan(null);
    return 'Plan cleared.';
  }
  state.setPlan({ title: args.title ?? state.plan?.title ?? null, content: args.content, revision });
  return `Plan saved: revision ${revision}, ${args.content.length} characters.`;
}

export function readPlan({ state }: ToolContext): string {
  if (!state.plan) return 'No plan has been written yet.';
  const { title, content, revision } = state.plan;
  return JSON.stringify({ title, revision, size: content.length, content });
}
