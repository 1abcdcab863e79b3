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

export class Rope {
  /** The closed batches, one flat string each, chained. */
  private base: string
  /** The open batch: its pieces appended with `+`. */
  private pending = ''
  private count = 0
  /**
   * The first character code of the last batch flattened: reading a character of a cons string
   * flattens it (V8's runtime StringCharCodeAt), and keeping the result keeps the read from
   * being optimised away.
   */
  private probe = 0
  /** Length of the whole string. */
  length: number

  constructor(initial = '') {
    this.base = initial
    this.length = initial.length
  }

  push(piece: string): void {
    if (piece.length === 0) return
    this.pending = this.count === 0 ? piece : this.pending + piece
    this.length += piece.length
    if (++this.count === BATCH) this.commit()
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
  }

  private commit(): void {
    const add = this.pending
    this.probe = add.charCodeAt(0)
    this.base = this.base.length === 0 ? add : this.base + add
    this.pending = ''
    this.count = 0
  }
}
