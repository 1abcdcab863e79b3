/**
 * How a {@link BlockParser} piped into an ordinary object-mode Writable hands it records without
 * the readable side: the same `write(record)` that `pipe`'s `data` handler would make, made
 * directly, and only when that write cannot ask the parser to pause.
 * @internal
 * @module
 */
import { Writable } from 'node:stream'

/**
 * Whether `dest` is a Writable whose `write` is Node's own, in object mode: its `write` returns
 * `false` only for a full buffer (which `offer` checks first), or an error or destroy that the
 * write itself caused. A stream that overrides `write` may refuse for its own reasons, and a
 * byte stream would throw on a record: those stay behind `pipe`.
 * @internal
 */
export function takesRecordsPlainly(dest: unknown): dest is Writable {
  return dest instanceof Writable && dest.write === Writable.prototype.write && dest.writableObjectMode
}

/** A Writable fed directly by the parser piped into it (see {@link BlockParser.fuse}). @internal */
export class WritableTaker {
  /**
   * One taker kept for the life of the process, for the reason given at DiffSession's keeper: a
   * parser drops its taker when its stream ends, and with the last taker dies the map that the
   * optimised code of the hand-off was built for (`ParserOutput.record`, `offer`,
   * `DiffSession.resumeDiffs`). Without it, a full collection with no stream open sent the next
   * stream through that code unoptimised, and through code compiled again after it: with this
   * build and the one before in one process, alternating, the first 200 KB stream after such a
   * collection took 5.1–6.7 ms against 6.1–8.8, and the stream after it 2.7–4.0 against 4.3–4.7
   * (the medians of 40 collections each, three processes).
   */
  static readonly #keeper: WritableTaker = new WritableTaker(new Writable({ objectMode: true }), () => {})

  /**
   * @param dest - the stream piped into; {@link takesRecordsPlainly} must hold
   * @param pause - what `pipe` does when a write returns `false`: pauses the parser
   */
  constructor(readonly dest: Writable, private readonly pause: () => void) {}

  /**
   * Writes `record` to the Writable and returns true, or returns false, having done nothing, when
   * that write would return `false` (a full buffer, an ended, destroyed or failed stream): then
   * `pipe` writes it, and pauses the parser for `drain` as it does.
   */
  offer(record: unknown): boolean {
    const d = this.dest
    // an object counts 1 against highWaterMark; a write returns `length < highWaterMark`
    if (d.writableLength + 1 >= d.writableHighWaterMark || d.writableEnded || d.destroyed || d.errored !== null) return false
    // `false` now means the write itself failed the stream (its `_write` called back with an
    // error at once, or destroyed it): `pipe` pauses then too, and its clean-up follows
    if (d.write(record) !== true) this.pause() // (`!== true`: see DiffSession.push)
    return true
  }
}
