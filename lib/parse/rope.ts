/**
 * A string that grows by appending, one chunk at a time, for the life of a long stream, and may
 * be read after any append.
 *
 * Built with `+=`, such a string is a chain of V8 cons-string nodes: one allocation per chunk,
 * and a long-lived chain of a hundred thousand nodes makes every major GC walk it. A Rope
 * collects pieces in an array and joins them 128 at a time, so the kept chain has one node per
 * batch. Reading between two joins adds the new pieces to the value by `+` (a node per piece,
 * not a copy); those nodes are dropped at the next join, so a reader that looks after every
 * append (a UI showing a growing value) does not bring the long chain back.
 * @internal
 * @module
 */

const BATCH = 128

export class Rope {
  private base: string
  // written in place and never shrunk: no allocation per piece once it has grown to a batch
  private readonly pieces: string[] = []
  private count = 0
  /** `base` plus `pieces[0..read)`: the value as last read */
  private current: string
  private read = 0
  /** Length of the whole string. */
  length: number

  constructor(initial = '') {
    this.base = initial
    this.current = initial
    this.length = initial.length
  }

  push(piece: string): void {
    if (piece.length === 0) return
    this.pieces[this.count++] = piece
    this.length += piece.length
    if (this.count === BATCH) this.commit()
  }

  /** The whole string; cheap to read after every push. */
  get value(): string {
    while (this.read < this.count) this.current += this.pieces[this.read++]!
    return this.current
  }

  /** Starts over with `value`. */
  reset(value = ''): void {
    this.base = value
    this.current = value
    this.length = value.length
    this.count = 0
    this.read = 0
  }

  private commit(): void {
    const add = this.pieces.join('')
    this.base = this.base.length === 0 ? add : this.base + add
    this.current = this.base
    this.count = 0
    this.read = 0
  }
}
