import type { ArborClient } from '../client/arbor-client.js';
import { formatTime } from './commands/list.js';
import { Interrupted } from './usage-error.js';

const newSession = '';
const offered = 10;

/**
 * On a terminal, `arbor chat` with no id offers the most recent open root sessions on its task queue (those its
 * workers serve) to resume, or a new one. Returns
 * the id picked, or undefined for a new session (also when there is none to offer).
 */
export async function pickSessionToResume(client: ArborClient, owner: string | undefined): Promise<string | undefined> {
  const open = (await client.listSessions({ ...(owner ? { owner } : {}), taskQueue: client.taskQueue, limit: 50 }))
    .filter((session) => session.closed_at === null)
    .slice(0, offered);
  if (open.length === 0) return undefined;
  const { select } = await import('@inquirer/prompts');
  try {
    const picked = await select(
      {
        message: 'Resume a session, or start a new one?',
        choices: [
          { value: newSession, name: 'Start a new session' },
          ...open.map((session) => ({
            value: session.session_id,
            name: `${session.title}  [${session.status}]`,
            description: `${session.session_id}, last active ${formatTime(session.last_activity_at)}`,
          })),
        ],
      },
      { input: process.stdin, output: process.stderr },
    );
    return picked === newSession ? undefined : picked;
  } catch (error) {
    if (error instanceof Error && error.name === 'ExitPromptError') throw new Interrupted('interrupted at the session picker');
    throw error;
  }
}
