/*
 * Answers that stream on purpose (a CSV export read page by page as the client reads) pass `serve`
 * unbuffered; every other answer is read whole there, so a body that fails can still be answered
 * as a problem. A streamed body's failure comes once its status is sent: it is logged and ends the
 * stream in error (the client sees a cut-off answer, never a silently complete-looking one).
 */

const streamedOnPurpose = new WeakSet<Response>();

/** A response whose body streams on purpose. */
export function streamedResponse(body: ReadableStream<Uint8Array>, init: ResponseInit): Response {
  const response = new Response(body, init);
  streamedOnPurpose.add(response);
  return response;
}

export function streamsOnPurpose(response: Response): boolean {
  return streamedOnPurpose.has(response);
}

/**
 * `body` passed on chunk by chunk, as the client reads (nothing is read ahead of it but the one
 * chunk a stream keeps queued): a failure while reading it is handed to `onFailure`, then ends the
 * stream in error. `onEnd` runs once, when the stream is done, failed or cancelled by the client.
 */
export function guardedStream(
  body: ReadableStream<Uint8Array>,
  handlers: { onFailure: (error: unknown) => void; onEnd: () => void },
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let ended = false;
  const end = () => {
    if (!ended) {
      ended = true;
      handlers.onEnd();
    }
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch (error) {
        handlers.onFailure(error);
        controller.error(error);
        end();
        return;
      }
      if (!chunk.done) return controller.enqueue(chunk.value);
      controller.close();
      end();
    },
    async cancel(reason) {
      end();
      await reader.cancel(reason);
    },
  });
}
