import { maxActiveGoals, type Goal } from '../shared/tools/goals.js';
import type { ToolReply } from '../shared/tool-reply.js';
import type { InboxMessage } from '../shared/session.js';
import { goalContinuationPrefix } from '../shared/message-sources.js';

/**
 * A session's goals. After each turn every active goal counts the turn; while one is active and unmet the session
 * drives the next turn with a continuation that restates the conditions. Pure: no Temporal calls.
 */
export class Goals {
  constructor(
    public goals: Goal[],
    private readonly now: () => Date,
    private readonly newId: () => string,
    private readonly onChange: (goal: Goal) => void = () => {},
  ) {}

  active(): Goal[] {
    return this.goals.filter((goal) => goal.status === 'active');
  }

  create(condition: string, maxTurns: number): ToolReply<Goal> {
    if (this.active().length >= maxActiveGoals) {
      return {
        ok: false,
        error: `This session already has ${maxActiveGoals} active goals, the most it may; complete or cancel one first.`,
      };
    }
    const now = this.now().toISOString();
    const goal: Goal = {
      goal_id: `goal-${this.newId().slice(0, 8)}`,
      condition,
      max_turns: maxTurns,
      completed_turns: 0,
      status: 'active',
      created_at: now,
      updated_at: now,
    };
    this.goals.push(goal);
    this.onChange(goal);
    return { ok: true, result: goal };
  }

  /** Ends an active goal as completed or cancelled; refused, with a message for the model, when that is not possible. */
  end(goalId: string, status: 'completed' | 'cancelled'): ToolReply<Goal> {
    const goal = this.goals.find((candidate) => candidate.goal_id === goalId);
    if (!goal)
      return {
        ok: false,
        error: `No goal ${goalId}. Active goals: ${
          this.active()
            .map((active) => active.goal_id)
            .join(', ') || 'none'
        }.`,
      };
    if (goal.status !== 'active') return { ok: false, error: `Goal ${goalId} is already ${goal.status}.` };
    goal.status = status;
    goal.updated_at = this.now().toISOString();
    this.onChange(goal);
    return { ok: true, result: goal };
  }

  /** Counts a finished turn for every active goal, exhausting those at max_turns; returns the continuation, if any goal is still active. */
  afterTurn(turn: number): InboxMessage | undefined {
    for (const goal of this.active()) {
      goal.completed_turns += 1;
      goal.updated_at = this.now().toISOString();
      if (goal.completed_turns >= goal.max_turns) goal.status = 'exhausted';
      this.onChange(goal);
    }
    const active = this.active();
    if (active.length === 0) return undefined;
    const lines = active.map(
      (goal) => `- ${goal.goal_id} (turn ${goal.completed_turns + 1} of at most ${goal.max_turns}): ${goal.condition}`,
    );
    return {
      id: `${goalContinuationPrefix}${turn}`,
      content:
        `[Goal continuation] Keep working toward your active goal(s):\n${lines.join('\n')}\n` +
        'When a condition is met, call completeGoal with its goal_id; if it cannot be met, call cancelGoal.',
      source: 'goal',
    };
  }
}
