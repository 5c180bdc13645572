import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { SearchAttributePair } from '@temporalio/common';
import { closedStatuses, sessionWorkflowType, type CarriedState, type SessionInput } from '../../shared/session.js';
import { forkedFromKey, parentSessionIdKey, rootSessionIdKey, statusKey, titleKey } from '../../shared/search-attributes.js';
import { textAttributeValue } from '../../shared/text-attribute.js';
import { defaultTitle } from '../../shared/titles.js';
import { defaultWorkMode } from '../../shared/work-modes.js';
import { defaultOwner } from '../../shared/tools/memory.js';
import type { SessionWorkflow } from '../../shared/workflow-types.js';
import { sessionOwnerMemoKey } from '../session-list.js';
import { forkPointAtPosition, forkPointsAtTime, type ForkPoint } from './fork-points.js';
import { boundedMap } from './concurrency.js';
import { ReplaySession } from './replay-run.js';
import { rewriteIds } from './rewrite-ids.js';
import { HistoryReads } from './session-runs.js';

/** One member of a forked tree: where it came from, and its id in the new tree. */
export interface ForkedMember {
  source_session_id: string;
  session_id: string;
  /** The source's transcript position it began with (0: started again from its instruction). */
  position: number;
  parent_session_id: string | null;
}

/** A fork: the new root's id, and every member started in the new tree (the root first). */
export interface ForkOutcome {
  session_id: string;
  position: number;
  members: ForkedMember[];
}

interface PlannedMember {
  point: ForkPoint;
  id: string;
  parent: PlannedMember | null;
}

/**
 * Forks `sourceId` at transcript position `at` (default: its latest turn end) with the sub-agents running then:
 * reads each member's state from its history (see fork-points.ts), gives the running ones new ids, and starts the new
 * tree, parents before their sub-agents. The source's workflows are only read.
 */
export async function forkTree(client: Client, sourceId: string, at?: number): Promise<ForkOutcome> {
  const reads = new HistoryReads(client);
  const replays = new ReplaySession(client.options.dataConverter);
  try {
    return await forkWith(client, reads, replays, sourceId, at);
  } finally {
    await replays.close();
  }
}

async function forkWith(client: Client, reads: HistoryReads, replays: ReplaySession, sourceId: string, at?: number): Promise<ForkOutcome> {
  const attributes = namespaceAttributes(client);
  const root: PlannedMember = { point: await forkPointAtPosition(reads, replays, sourceId, at), id: randomUUID(), parent: null };
  const members = [root];
  const levels = [[root]];
  // Sub-agents running at the fork point, level by level, each at its latest turn end not after the root's.
  for (let level = [root]; level.length > 0;) {
    const running = level.flatMap((parent) =>
      (parent.point.state?.carried.children ?? [])
        .filter((child) => !closedStatuses.includes(child.status))
        .map((child) => ({ parent, sourceId: child.sub_session_id })),
    );
    const points =
      running.length > 0
        ? await forkPointsAtTime(
            reads,
            replays,
            running.map((child) => child.sourceId),
            root.point.atMs,
          )
        : [];
    level = points.map((point, index) => ({ point, id: randomUUID(), parent: running[index]!.parent }));
    members.push(...level);
    if (level.length > 0) levels.push(level);
  }
  const ids = new Map(members.map((member) => [member.point.sessionId, member.id]));
  const has = await attributes;
  // Parents before their sub-agents (a sub-agent may signal its parent at once); the members of a level side by side.
  for (const level of levels) {
    await boundedMap(level, (member) => {
      const input = forkInput(member, ids);
      return client.workflow.start<SessionWorkflow>(sessionWorkflowType, {
        workflowId: member.id,
        taskQueue: member.point.run.taskQueue,
        args: [input],
        staticSummary: input.title,
        ...(member.parent ? {} : { memo: { [sessionOwnerMemoKey]: input.owner ?? defaultOwner } }),
        typedSearchAttributes: startAttributes(member, input, has),
      });
    });
  }
  return {
    session_id: root.id,
    position: root.point.position,
    members: members.map((member) => ({
      source_session_id: member.point.sessionId,
      session_id: member.id,
      position: member.point.position,
      parent_session_id: member.parent?.id ?? null,
    })),
  };
}

/** The start input of a member of the new tree: the source run's options, with the state at the fork point carried. */
function forkInput(member: PlannedMember, ids: ReadonlyMap<string, string>): SessionInput {
  const { point, parent } = member;
  const { carried: _carried, forked_from: _forkedFrom, ...options } = point.input;
  const identity = {
    ...(parent ? { parent_session_id: parent.id, root_session_id: rootOf(member).id, ancestor_session_ids: ancestorsOf(member) } : {}),
    forked_from: { session_id: point.sessionId, position: point.position },
  };
  // Not yet at a turn end by then: the sub-agent starts again from its first input, instruction and all.
  if (!point.state) return { ...rewriteIds(options, ids), ...identity };
  const { instruction, ...rest } = options;
  const title = options.title ?? defaultTitle(instruction);
  return {
    ...rewriteIds(rest, ids),
    title,
    work_mode: point.state.work_mode === defaultWorkMode ? undefined : point.state.work_mode,
    profile: point.state.profile,
    carried: rewriteIds(carriedAtFork(point.state.carried), ids),
    ...identity,
  };
}

/**
 * What the fork carries of the state at the fork point: all of it but the messages users sent during the turn (not in
 * the conversation at that position, so not the fork's) and the question sets reported from below (running
 * sub-agents start again, and report theirs afresh). Running sub-agents outlive the run, as after a continue-as-new.
 */
function carriedAtFork(carried: CarriedState): CarriedState {
  const { tree_questions: _questions, ...rest } = carried;
  return {
    ...rest,
    inbox: carried.inbox.filter((message) => message.source !== undefined && message.source !== 'user'),
    children: (carried.children ?? []).map((child) => (closedStatuses.includes(child.status) ? child : { ...child, outlives_run: true })),
  };
}

function rootOf(member: PlannedMember): PlannedMember {
  return member.parent ? rootOf(member.parent) : member;
}

function ancestorsOf(member: PlannedMember): string[] {
  return member.parent ? [...ancestorsOf(member.parent), member.parent.id] : [];
}

/** The identity attributes a session (or sub-agent) starts with, and its origin, for those the namespace has. */
function startAttributes(member: PlannedMember, input: SessionInput, has: ReadonlySet<string>): SearchAttributePair[] {
  const pairs: SearchAttributePair[] = [
    { key: rootSessionIdKey, value: rootOf(member).id },
    { key: titleKey, value: textAttributeValue(input.title ?? defaultTitle(input.instruction)) },
    { key: statusKey, value: 'idle' },
    ...(member.parent ? [{ key: parentSessionIdKey, value: member.parent.id }] : []),
    { key: forkedFromKey, value: member.point.sessionId },
  ];
  return pairs.filter((pair) => has.has(pair.key.name));
}

async function namespaceAttributes(client: Client): Promise<ReadonlySet<string>> {
  try {
    const { customAttributes } = await client.connection.operatorService.listSearchAttributes({ namespace: client.options.namespace });
    return new Set(Object.keys(customAttributes ?? {}));
  } catch {
    return new Set();
  }
}
