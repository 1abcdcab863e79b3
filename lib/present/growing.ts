/**
 * A string that grows by small appends and is read after most of them.
 *
 * `s += piece` makes one V8 cons-string node per append, and a long-lived value keeps the whole
 * chain: a hundred thousand nodes that every major GC walks, then promotes, then walks again.
 * {@link Rope} avoids that by batching, but reading it commits the batch, so a value read after
 * every append (as a UI update is) would again be one node per append.
 *
 * Here pieces are kept in an array and joined {@link BATCH} at a time into `base`, which is
 * flattened whenever it has grown fourfold: the retained chain has one node per batch, and the
 * total copying stays linear in the final length (at most 4/3 of it). Reading between two commits adds the new pieces to
 * `base` by `+` (a node per piece, not a copy); those nodes are dropped at the next commit.
 * @internal
 * @module
 */

const BATCH = 128
const FLAT_START = 4096

/** Makes V8 flatten `s` in place (a cons string is rewritten to point at one flat copy). */
function flatten(s: string): void {
  s.indexOf('\u0000', s.length - 1)
}

export class GrowingString {
  private base: string
  // written in place and never shrunk: no allocation per piece once it has grown to a batch
  private readonly pieces: string[] = []
  private count = 0
  /** `base` plus `pieces[0..read)`, built by `+` only when the value is read between commits */
  private current: string
  private read = 0
  private flatMark: number
  /** Length of the whole value. */
  length: number

  constructor(initial = '') {
    this.base = initial
    this.current = initial
    this.length = initial.length
    this.flatMark = Math.max(FLAT_START, initial.length * 2)
  }

  /** The whole value; cheap (one cons node per piece not yet read), so it may be read after every append. */
  get value(): string {
    while (this.read < this.count) this.current += this.pieces[this.read++]!
    return this.current
  }

  append(piece: string): void {
    if (piece.length === 0) return
    this.pieces[this.count++] = piece
    this.length += piece.length
    if (this.count === BATCH) this.commit()
  }

  /** Starts over with `value`. */
  reset(value = ''): void {
    this.base = value
    this.current = value
    this.length = value.length
    this.count = 0
    this.read = 0
    this.flatMark = Math.max(FLAT_START, value.length * 2)
  }

  private commit(): void {
    // one node per batch in the retained chain; the nodes `value` built since the last commit die young
    const add = this.pieces.join('')
    this.base = this.base.length === 0 ? add : this.base + add
    this.count = 0
    this.read = 0
    if (this.base.length > this.flatMark) {
      this.flatMark = this.base.length * 4
      flatten(this.base)
    }
    this.current = this.base
  }
}
