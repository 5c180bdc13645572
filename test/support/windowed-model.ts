import type { FakeReply, RecordedRequest } from './fake-openai.js';

/** The size of a request as the fake model measures its window: characters of the JSON body. */
export function requestChars(request: RecordedRequest): number {
  return JSON.stringify(request.body).length;
}

/**
 * A fake model with a context window of `windowChars` characters of request body, four a token: over it, OpenAI's
 * refusal (`context_length_exceeded`, with its figures); within it, `answer`.
 */
export function windowedModel(
  windowChars: number,
  answer: (request: RecordedRequest) => FakeReply,
): (request: RecordedRequest) => FakeReply {
  return (request) => {
    const chars = requestChars(request);
    if (chars <= windowChars) return answer(request);
    return {
      status: 400,
      body: {
        error: {
          message: `This model's maximum context length is ${windowChars / 4} tokens. However, your messages resulted in ${Math.ceil(chars / 4)} tokens. Please reduce the length of the messages.`,
          type: 'invalid_request_error',
          param: 'messages',
          code: 'context_length_exceeded',
        },
      },
    };
  };
}
