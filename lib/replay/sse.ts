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
  const size = new EventSize(report.limit)
  async function* parsed(): AsyncGenerator<(EventSourceMessage | Error)[], void, undefined> {
    for await (const s of decodeText(source)) {
      const over = size.scan(s)
      parser.feed(over < 0 ? s : s.slice(0, over))
      yield queue.splice(0)
      // the events before the long one came out; it is refused before being held whole
      if (over >= 0) throw report.tooLarge(`event ${n + 1}`, 'an event', { event: n + 1 })
    }
    parser.feed('\n\n')
    yield queue.splice(0)
  }
  yield* mapBatches(parsed(), drain)
}

const TERMINATOR = /\r\n?|\n/gu

/**
 * Counts the characters of the event being read (its lines since the last blank one) as the
 * text arrives, as the SSE grammar cuts lines (CR, LF or CRLF, a CRLF possibly split between
 * two pieces), so that an event longer than the limit is found before the parser has it whole.
 * @internal
 */
export class EventSize {
  /** Characters of the line being read, and of the event (its lines so far, this one included). */
  private line = 0
  private event = 0
  private afterCR = false

  constructor(private readonly limit: number) {}

  /** Takes the next piece: -1, or where in it the event being read passes the limit. */
  scan(s: string): number {
    let from = 0
    if (this.afterCR && s.charCodeAt(0) === 10) from = 1 // the LF of a CRLF cut in two
    this.afterCR = false
    TERMINATOR.lastIndex = from
    for (;;) {
      const m = TERMINATOR.exec(s)
      const end = m === null ? s.length : m.index
      if (this.event + end - from > this.limit) return from + this.limit - this.event
      this.event += end - from
      this.line += end - from
      if (m === null) return -1
      if (this.line === 0) this.event = 0 // a blank line ends the event
      this.line = 0
      from = end + m[0].length
      if (m[0] === '\r' && from === s.length) this.afterCR = true
    }
  }
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
