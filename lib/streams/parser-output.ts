/**
 * Where a BlockParser's session delivers its records: pushed to the readable side, or handed to
 * the stream the parser is fused with (see `BlockParser.fuse`).
 * @internal
 * @module
 */
import type { Readable } from 'node:stream'
import type { Block, Diagnostic, DiffRecord } from '../types.js'
import type { TextRun } from '../parse/field.js'
import type { SessionOutput } from './session.js'

/**
 * A stream that takes a parser's records straight from it, bypassing the readable side (see
 * `BlockParser.fuse`): the Presenter piped into it, or an object-mode Writable (through a
 * `WritableTaker`). @internal
 */
export interface RecordTaker {
  /**
   * Takes `record` as its `write(record)` would and returns true, or returns false, having done
   * nothing, when that `write` would not present the record at once (it would buffer it, or
   * the stream is busy, ended or destroyed): the record then goes the usual way.
   */
  offer(record: unknown): boolean
  /**
   * `offer` of the record `{op: 'append', index, path, text}`, given by its parts, whose text is
   * `run.coreSlice(from, from + text.length)`, or, for a negative `from`, that run up to
   * `run.coreLength` and then text past it (see `SessionOutput.append`). A taker that has it
   * gets the parser's appends this way while fused (`DiffSession.lends`).
   */
  offerAppend?(index: number, path: string, text: string, run: TextRun, from: number): boolean
}

/**
 * A BlockParser's {@link SessionOutput}. One class, rather than closures made by each parser, so
 * that the session's calls of it see one function: optimised code that inlined one parser's
 * closure was thrown away at the next parser's first record ("wrong call target").
 * @internal
 */
export class ParserOutput implements SessionOutput {
  /**
   * The stream the parser is piped into, while it is the parser's one reader (see
   * `BlockParser.fuse`): a record is offered to it directly, not pushed.
   */
  fused: RecordTaker | null = null
  /**
   * Inside the parser's `_read`: a record made there is pushed, not offered. The Readable counts
   * itself as reading from the call of `_read` until a `push`, and delivers what was pushed right
   * after.
   */
  reading = false

  /** @param stream - the parser */
  constructor(private readonly stream: Readable) {}

  record(r: DiffRecord | Block[]): void {
    // the fused reader takes it as `pipe` would hand it over now: the readable side is flowing
    // and empty, so `push` would emit it at once to that reader's one `data` listener, whose
    // `write` it is
    const f = this.fused
    const s = this.stream
    // (`=== true`: see DiffSession.push)
    if (f !== null && this.reading !== true && s.readableFlowing === true && s.readableLength === 0 && f.offer(r) === true) return
    s.push(r)
  }

  append(index: number, path: string, text: string, run: TextRun, from: number): void {
    // as `record`; the record is made only if the fused reader does not take the parts
    const f = this.fused
    const s = this.stream
    if (f !== null && this.reading !== true && s.readableFlowing === true && s.readableLength === 0 && f.offerAppend!(index, path, text, run, from) === true) return
    s.push({ op: 'append', index, path, text })
  }

  diagnostic(d: Diagnostic): void {
    this.stream.emit('diagnostic', d)
  }
}
