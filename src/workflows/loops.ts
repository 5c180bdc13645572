import { maxActiveLoops, type Loop } from '../shared/tools/loops.js';
import type { ToolReply } from '../shared/tool-reply.js';
import type { InboxMessage } from '../shared/session.js';
import { loopFiringPrefix } from '../shared/message-sources.js';

/** The loop a firing's message id names. */
export function loopOfFiring(messageId: string): string {
  return messageId.slice(loopFiringPrefix.length, messageId.lastIndexOf(':'));
}

export interface LoopLimits {
  minIntervalSeconds: number;
  maxAgeSeconds: number;
}

/**
 * A session's loops: each fires its prompt into the inbox on a durable timer (see the loop clock in the workflow),
 * so a firing that comes during a turn waits for it, never overlapping and never lost. Pure: no Temporal calls.
 */
export class Loops {
  /** Bumped on every change, so the loop clock re-plans its timer. */
  version = 0;

  constructor(
    public loops: Loop[],
    private readonly now: () => Date,
    private readonly newId: () => string,
    private readonly onChange: (loop: Loop) => void = () => {},
  ) {}

  live(): Loop[] {
    return this.loops.filter((loop) => loop.status === 'active' || loop.status === 'paused');
  }

  create(args: { prompt: string; interval_seconds: number; max_turns: number }, limits: LoopLimits): ToolReply<Loop> {
    if (args.interval_seconds < limits.minIntervalSeconds) {
      return {
        ok: false,
        error: `interval_seconds must be at least ${limits.minIntervalSeconds} (this deployment's minimum); got ${args.interval_seconds}.`,
      };
    }
    if (this.live().length >= maxActiveLoops)
      return { ok: false, error: `This session already has ${maxActiveLoops} loops, the most it may; cancel one first.` };
    const now = this.now();
    const loop: Loop = {
      loop_id: `loop-${this.newId().slice(0, 8)}`,
      prompt: args.prompt,
      interval_seconds: args.interval_seconds,
      max_turns: args.max_turns,
      firings: 0,
      status: 'active',
      created_at: now.toISOString(),
      updated_at: now.toISOString(),
      expires_at: new Date(now.getTime() + limits.maxAgeSeconds * 1000).toISOString(),
      next_fire_at: new Date(now.getTime() + args.interval_seconds * 1000).toISOString(),
    };
    this.loops.push(loop);
    this.changed(loop);
    return { ok: true, result: loop };
  }

  pause(loopId: string): ToolReply<Loop> {
    return this.transition(loopId, ['active'], (loop) => {
      loop.status = 'paused';
      loop.next_fire_at = null;
    });
  }

  resume(loopId: string): ToolReply<Loop> {
    return this.transition(loopId, ['paused'], (loop) => {
      loop.status = 'active';
      loop.next_fire_at = new Date(this.now().getTime() + loop.interval_seconds * 1000).toISOString();
    });
  }

  end(loopId: string, status: 'cancelled' | 'completed', reason?: string): ToolReply<Loop> {
    return this.transition(loopId, ['active', 'paused'], (loop) => {
      loop.status = status;
      loop.next_fire_at = null;
      if (reason) loop.reason = reason;
    });
  }

  /** When the loop clock must wake next: the earliest firing or expiry of an active loop. */
  nextWake(): number | undefined {
    let wake: number | undefined;
    for (const loop of this.loops) {
      if (loop.status !== 'active' || !loop.next_fire_at) continue;
      const at = Math.min(Date.parse(loop.next_fire_at), Date.parse(loop.expires_at));
      wake = wake === undefined ? at : Math.min(wake, at);
    }
    return wake;
  }

  /** Fires every loop that is due (returning the inbox messages) and exhausts those expired or out of turns. */
  fireDue(): InboxMessage[] {
    const now = this.now().getTime();
    const messages: InboxMessage[] = [];
    for (const loop of this.loops) {
      if (loop.status !== 'active' || !loop.next_fire_at) continue;
      if (now >= Date.parse(loop.expires_at)) {
        this.exhaust(loop, 'expired');
        continue;
      }
      const due = Date.parse(loop.next_fire_at);
      if (now < due) continue;
      loop.firings += 1;
      messages.push({
        id: `${loopFiringPrefix}${loop.loop_id}:${loop.firings}`,
        content: `[Loop ${loop.loop_id}, firing ${loop.firings} of at most ${loop.max_turns}] ${loop.prompt}`,
        source: 'loop',
      });
      if (loop.firings >= loop.max_turns) {
        this.exhaust(loop, 'max_turns reached');
        continue;
      }
      const next = due + loop.interval_seconds * 1000;
      loop.next_fire_at = new Date(next > now ? next : now + loop.interval_seconds * 1000).toISOString();
      this.changed(loop);
    }
    return messages;
  }

  private exhaust(loop: Loop, reason: string): void {
    loop.status = 'exhausted';
    loop.next_fire_at = null;
    loop.reason = reason;
    this.changed(loop);
  }

  private transition(loopId: string, from: Loop['status'][], apply: (loop: Loop) => void): ToolReply<Loop> {
    const loop = this.loops.find((candidate) => candidate.loop_id === loopId);
    if (!loop)
      return {
        ok: false,
        error: `No loop ${loopId}. Loops: ${
          this.live()
            .map((live) => `${live.loop_id} (${live.status})`)
            .join(', ') || 'none'
        }.`,
      };
    if (!from.includes(loop.status)) return { ok: false, error: `Loop ${loopId} is ${loop.status}; this needs it ${from.join(' or ')}.` };
    apply(loop);
    this.changed(loop);
    return { ok: true, result: loop };
  }

  private changed(loop: Loop): void {
    loop.updated_at = this.now().toISOString();
    this.version += 1;
    this.onChange(loop);
  }
}
