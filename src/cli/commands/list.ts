import { Command, InvalidArgumentError } from 'commander';
import { listedSessionStatuses, type ListedSessionStatus, type SessionSummary } from '../../client/session-list.js';
import { createOutput } from '../output.js';
import { connectionSettingsFrom, ownerId, positiveInteger, withConnectionFlags, type ConnectionFlags } from '../options.js';
import { inFlagTerms, listTerms } from '../flag-terms.js';
import { withClient } from '../with-client.js';

interface ListFlags extends ConnectionFlags {
  status?: ListedSessionStatus;
  owner?: string;
  title?: string;
  limit?: number;
  json?: boolean;
}

function listedStatus(value: string): ListedSessionStatus {
  const status = listedSessionStatuses.find((candidate) => candidate === value);
  if (!status) throw new InvalidArgumentError(`--status "${value}": the status is one of ${listedSessionStatuses.join(', ')}.`);
  return status;
}

export const listCommand = withConnectionFlags(
  new Command('list')
    .alias('sessions')
    .description('list root sessions, newest activity first, with id, status, owner, last activity and title')
    .option('--status <status>', `only sessions with this status (${listedSessionStatuses.join(', ')})`, listedStatus)
    .option('--owner <id>', "only this owner's sessions", ownerId)
    .option('--title <text>', 'only sessions whose title contains this text (any case)')
    .option('--limit <n>', 'at most this many sessions (default 20)', positiveInteger('--limit'))
    .option('--json', 'print one JSON object'),
).action(async (flags: ListFlags) => {
  const output = createOutput(Boolean(flags.json));
  await withClient(connectionSettingsFrom(flags), (client) =>
    inFlagTerms(listTerms, async () => {
      const sessions = await client.listSessions({
        ...(flags.status ? { status: flags.status } : {}),
        ...(flags.owner ? { owner: flags.owner } : {}),
        ...(flags.title ? { title: flags.title } : {}),
        ...(flags.limit ? { limit: flags.limit } : {}),
      });
      output.result({ sessions }, renderSessionList(sessions));
    }),
  );
});

export function renderSessionList(sessions: readonly SessionSummary[]): string {
  if (sessions.length === 0) return 'no sessions (arbor run "<instruction>" starts one)';
  const rows = sessions.map((session) => [
    session.session_id,
    session.status,
    // A memo encrypted with a key this client lacks: the owner is unknown, not absent.
    session.owner ?? (session.encrypted ? '(encrypted)' : '-'),
    formatTime(session.last_activity_at),
    session.title,
  ]);
  const header = ['SESSION', 'STATUS', 'OWNER', 'LAST ACTIVITY', 'TITLE'];
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  return [header, ...rows]
    .map((row) => row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!))).join('  '))
    .join('\n');
}

/** A time as `2026-12-01 13:45:02` in local time, short enough for a table. */
export function formatTime(iso: string): string {
  const date = new Date(iso);
  const pad = (value: number) => String(value).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}
