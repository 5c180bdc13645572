/** The floor of the turn benchmark: bare Temporal code doing a turn's work (one signal, one activity), nothing more. */
import { condition, defineQuery, defineSignal, proxyActivities, setHandler } from '@temporalio/workflow';

export const bareMessageSignal = defineSignal<[string]>('bareMessage');
export const bareTurnsQuery = defineQuery<number>('bareTurns');

const { bareModelCall } = proxyActivities<{ bareModelCall(text: string): Promise<string> }>({ startToCloseTimeout: '1 minute' });

export async function bareTurnWorkflow(): Promise<void> {
  const inbox: string[] = [];
  let turns = 0;
  setHandler(bareMessageSignal, (text) => void inbox.push(text));
  setHandler(bareTurnsQuery, () => turns);
  for (;;) {
    await condition(() => inbox.length > 0);
    await bareModelCall(inbox.splice(0).join('\n'));
    turns += 1;
  }
}
