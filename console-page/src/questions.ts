import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import type { QuestionSet } from '../../src/shared/tools/ask-user.js';
import { postJson, sessionPath } from './api.js';

type Choice = { selected: string[]; other: string; otherOn: boolean };
type Answer = string | { other: string } | (string | { other: string })[];

/** The answers as the SDK takes them; checking them is the SDK's (the same messages as the CLI's). */
function answersOf(set: QuestionSet, choices: Record<string, Choice>): Record<string, Answer> {
  const answers: Record<string, Answer> = {};
  for (const question of set.questions) {
    const choice = choices[question.question];
    if (!choice) continue;
    const parts: (string | { other: string })[] = [...choice.selected, ...(choice.otherOn ? [{ other: choice.other }] : [])];
    if (parts.length === 0) continue;
    answers[question.question] = question.multiSelect ? parts : parts[0]!;
  }
  return answers;
}

/** One waiting question set, from anywhere in the tree, answered through the root session. */
export function QuestionSetForm(props: { rootId: string; set: QuestionSet; onAnswered: () => void }) {
  const { set } = props;
  const [choices, setChoices] = useState<Record<string, Choice>>({});
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const choiceOf = (question: string): Choice => choices[question] ?? { selected: [], other: '', otherOn: false };
  const update = (question: string, change: (choice: Choice) => Choice) =>
    setChoices({ ...choices, [question]: change(choiceOf(question)) });

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await postJson(sessionPath(props.rootId, 'answers'), { questionSetId: set.question_set_id, answers: answersOf(set, choices) });
      props.onAnswered();
    } catch (refusal) {
      setError((refusal as Error).message);
    } finally {
      setBusy(false);
    }
  };

  return html`<form class="question-set" data-question-set=${set.question_set_id} onSubmit=${submit}>
    <p class="asker">${set.approval ? 'Approval asked by' : 'Asked by'} <strong>${set.session_title}</strong></p>
    ${
      set.approval
        ? html`<p class="approval">Tool <code>${set.approval.tool_name}</code> with <code>${set.approval.arguments}</code></p>`
        : null
    }
    ${set.questions.map((question) => {
      const choice = choiceOf(question.question);
      const type = question.multiSelect ? 'checkbox' : 'radio';
      const name = `${set.question_set_id}:${question.question}`;
      return html`<fieldset class="question">
        <legend><span class="chip">${question.header}</span> ${question.question}</legend>
        ${question.options.map(
          (option) =>
            html`<label class="option">
              <input
                type=${type}
                name=${name}
                checked=${choice.selected.includes(option.label)}
                onChange=${(event: Event) => {
                  const on = (event.target as HTMLInputElement).checked;
                  update(question.question, (current) =>
                    question.multiSelect
                      ? {
                          ...current,
                          selected: on ? [...current.selected, option.label] : current.selected.filter((label) => label !== option.label),
                        }
                      : { ...current, selected: [option.label], otherOn: false },
                  );
                }}
              />
              <span>${option.label}</span>
              ${option.description ? html`<small>${option.description}</small>` : null}
            </label>`,
        )}
        <label class="option">
          <input
            type=${type}
            name=${name}
            checked=${choice.otherOn}
            onChange=${(event: Event) => {
              const on = (event.target as HTMLInputElement).checked;
              update(question.question, (current) =>
                question.multiSelect ? { ...current, otherOn: on } : { ...current, selected: [], otherOn: on },
              );
            }}
          />
          <span>Other</span>
          <input
            type="text"
            class="other-text"
            aria-label=${`Other answer to: ${question.question}`}
            value=${choice.other}
            onInput=${(event: Event) =>
              update(question.question, (current) => ({
                ...current,
                other: (event.target as HTMLInputElement).value,
                otherOn: true,
                selected: question.multiSelect ? current.selected : [],
              }))}
          />
        </label>
      </fieldset>`;
    })}
    ${error ? html`<p class="error" role="alert">${error}</p>` : null}
    <button type="submit" disabled=${busy}>Answer</button>
  </form>`;
}
