/**
 * A string that grows by appending, one chunk at a time, for the life of a long stream, and may
 * be read after any append.
 *
 * Built with `+=` alone, such a string is a chain of V8 cons-string nodes: one node per chunk,
 * and a long-lived chain of a hundred thousand nodes makes every major GC walk it. A Rope appends
 * the pieces of one batch (128) with `+`, then flattens that batch into one flat string and
 * hangs it on the kept value, so the kept chain has one node per batch. The pieces of a batch
 * are appended with `+` rather than collected in an array and joined: by instruction counts on
 * 16-character pieces (cachegrind), `+` and one flatten per batch cost ~160 instructions a piece,
 * `Array.prototype.join` ~250 (its generic per-element loop). Reading between two batches is one
 * `+` of the kept value and the open batch, and does not bring the long chain back.
 * @internal
 * @module
 */

const BATCH = 128
/** A slice of about this many of the open batch's pieces or more is cut from the batch flattened. */
const FLAT_SLICE = 8

/** What the last `flatten` found, kept so that its search is not optimised away. */
let flattened = 0

/**
 * `s`, made flat by V8 if it was made of pieces: a search reads it whole, which flattens a cons
 * string in place (reading one character does so only sometimes: optimised code walks down to
 * the piece that holds it). @internal
 */
export function flatten(s: string): string {
  flattened = s.indexOf('\0')
  return s
}

export class Rope {
  /** The closed batches, one flat string each, chained. */
  private base: string
  /** The open batch: its pieces appended with `+`. */
  private pending = ''
  private count = 0
  /**
   * For `slice`: the closed batches one by one with the offset where each ends, and the open
   * batch's pieces once it has two (a range of them is cut without flattening the open batch,
   * which a slice of `pending` would do, again after every push). Made on first need: most
   * values of a one-shot parse are one piece.
   */
  private batches: string[] | null = null
  private ends: number[] | null = null
  private pieces: string[] | null = null
  /**
   * The first character code of the last batch flattened: reading a character of a cons string
   * flattens it (V8's runtime StringCharCodeAt), and keeping the result keeps the read from
   * being optimised away.
   */
  private probe = 0
  /** Length of the whole string. */
  length: number
  /**
   * Whether `slice` may be called: a Rope that is only ever read whole (the Presenter's copy of
   * the open value, the session's copy of the value its consumer saw) keeps neither the open
   * batch's pieces nor the closed batches (a push of a 16-character piece measured about 17 ns
   * against 20). The text a stream receives stays sliceable: its values are runs of it.
   */
  private readonly sliceable: boolean

  /**
   * @param initial - the string to start with
   * @param sliceable - `false` for a Rope that is only read whole (`value`): `slice` then throws
   */
  constructor(initial = '', sliceable = true) {
    this.base = initial
    this.length = initial.length
    this.sliceable = sliceable
    if (initial.length > 0) this.close(initial)
  }

  push(piece: string): void {
    if (piece.length === 0) return
    if (this.count === 0) this.pending = piece
    else {
      // (`=== true`: see DiffSession.push)
      if (this.sliceable === true) {
        if (this.count === 1) (this.pieces ??= [])[0] = this.pending
        this.pieces![this.count] = piece
      }
      this.pending = this.pending + piece
    }
    this.length += piece.length
    if (++this.count === BATCH) this.commit()
  }

  /**
   * The characters from `from` to `to` (clamped to the string), as pieces of the batches joined
   * with `+`: no copy, and no flattening of the open batch. O(batches and pieces in the range,
   * and the open batch's pieces after it), plus a binary search.
   */
  slice(from: number, to: number): string {
    if (!this.sliceable) throw new Error('Rope: slice of a rope made to be read whole')
    const end = Math.min(to, this.length)
    const start = Math.max(0, from)
    if (start >= end) return ''
    let out = ''
    const ends = this.ends
    const closed = ends === null ? 0 : ends[ends.length - 1]!
    if (ends !== null && start < closed) {
      const batches = this.batches!
      // the first closed batch that ends after `start`
      let lo = 0
      let hi = ends.length - 1
      while (lo < hi) {
        const mid = (lo + hi) >> 1
        if (ends[mid]! > start) hi = mid
        else lo = mid + 1
      }
      for (let k = lo; k < ends.length; k++) {
        const at = k === 0 ? 0 : ends[k - 1]!
        if (at >= end) break
        const b = batches[k]!
        out += at >= start && ends[k]! <= end ? b : b.slice(Math.max(start - at, 0), Math.min(end - at, b.length))
      }
    }
    if (end > closed) {
      const from = Math.max(start, closed)
      if (this.count > 1 && (end - from) * this.count > FLAT_SLICE * (this.length - closed)) {
        // a run of many of the open batch's pieces (by its share of the batch's characters): one
        // slice of the batch, which V8 flattens and keeps flat, rather than a cons string of
        // every piece in the run (a Presenter cuts each param's value from the text received,
        // about 26 pieces of a 16-byte stream: by callgrind, the cuts cost a fifth to a third of
        // what they did). The batch copied is at most BATCH / FLAT_SLICE times the run
        return out + this.pending.slice(from - closed, end - closed)
      }
      // from the last piece back, as a slice is most often of the latest text: O(pieces in range)
      let tail = ''
      let next = this.length
      const pieces = this.pieces
      for (let i = this.count - 1; i >= 0 && next > start; i--) {
        // one piece: the open batch is that piece, not a cons string
        const piece = this.count === 1 ? this.pending : pieces![i]!
        const at = next - piece.length
        if (at < end) tail = (at >= start && next <= end ? piece : piece.slice(Math.max(start - at, 0), Math.min(end - at, piece.length))) + tail
        next = at
      }
      out += tail
    }
    return out
  }

  /** The whole string; cheap to read after every push. */
  get value(): string {
    if (this.count === 0) return this.base
    return this.base.length === 0 ? this.pending : this.base + this.pending
  }

  /** Starts over with `value`. */
  reset(value = ''): void {
    this.base = value
    this.pending = ''
    this.length = value.length
    this.count = 0
    this.batches = this.ends = null
    if (value.length > 0) this.close(value)
  }

  private commit(): void {
    const add = this.pending
    this.probe = add.charCodeAt(0)
    this.base = this.base.length === 0 ? add : this.base + add
    this.pending = ''
    this.count = 0
    this.close(add)
  }

  /** Records `batch`, whose last character is the string's last, as closed. */
  private close(batch: string): void {
    if (!this.sliceable) return
    ;(this.batches ??= []).push(batch)
    ;(this.ends ??= []).push(this.length)
  }
}
