/**
 * Server-sent events, split by eventsource-parser (a maintained implementation of the WHATWG
 * rules: CR/LF variants, multi-line data, comments) rather than by hand.
 * @internal
 * @module
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser'
import type { LogSource, Reporter } from './events.js'
import { decodeText, mapBatches } from './source.js'

/** One SSE event with its 1-based number in the capture, for error messages. @internal */
export interface NumberedEvent {
  n: number
  data: string
}

/**
 * Yields the events of an SSE capture, one batch per input chunk. A line the SSE grammar does
 * not know (`garbage`) is a malformed event: reported through `report` (fatal, or skipped with
 * a warning). A capture whose last event lacks its closing blank line still yields that event:
 * a cut capture then shows up as a malformed payload instead of vanishing.
 * @internal
 */
export async function* sseEventBatches(source: LogSource, report: Reporter): AsyncGenerator<NumberedEvent[], void, undefined> {
  const queue: (EventSourceMessage | Error)[] = []
  const parser = createParser({
    onEvent: (e) => queue.push(e),
    onError: (e) => queue.push(e),
  })
  let n = 0
  const drain = (e: EventSourceMessage | Error, out: NumberedEvent[]): void => {
    n++
    if (!(e instanceof Error)) {
      out.push({ n, data: e.data })
      return
    }
    const line = (e as Error & { line?: string }).line
    report.bad(`event ${n}`, `not an SSE line${line === undefined ? '' : ` ${JSON.stringify(line.slice(0, 60))}`} (${e.message})`, { event: n })
  }
  async function* parsed(): AsyncGenerator<(EventSourceMessage | Error)[], void, undefined> {
    for await (const s of decodeText(source)) {
      parser.feed(s)
      yield queue.splice(0)
    }
    parser.feed('\n\n')
    yield queue.splice(0)
  }
  yield* mapBatches(parsed(), drain)
}

/** Parses an event's JSON payload, or reports it; `undefined` when skipped. @internal */
export function eventJson(e: NumberedEvent, report: Reporter): unknown {
  try {
    return JSON.parse(e.data) as unknown
  } catch (err) {
    report.bad(`event ${e.n}`, `data is not JSON (${(err as Error).message})`, { event: e.n })
    return undefined
  }
}
