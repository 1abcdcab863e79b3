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
 *
 * The batches are joined again once they hold {@link LARGE} characters: a string that long is
 * allocated outside V8's young generation, which a scavenge never copies. Left as 2 KB batches,
 * every character of a long stream's text was copied by the scavenger once or twice (measured:
 * scavenges promoting 2.5 MB each, a tenth of the BlockParser's time on a 200 KB stream).
 * @internal
 * @module
 */

const BATCH = 128
/** Characters of joined batches that are joined into one large string (128 Ki: V8's large-object threshold for one-byte strings). */
const LARGE = 1 << 17

export class Rope {
  /** The large strings joined so far, chained by `+`. */
  private base: string
  // written in place and never shrunk: no allocation per piece once they have grown
  private readonly pieces: string[] = []
  private count = 0
  private readonly batches: string[] = []
  private batchChars = 0
  /** `base` plus the batches, chained by `+` (a node per batch, dropped at the next large join). */
  private mid: string
  /** `mid` plus `pieces[0..read)`: the value as last read */
  private current: string
  private read = 0
  /** Length of the whole string. */
  length: number

  constructor(initial = '') {
    this.base = initial
    this.mid = initial
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
    this.mid = value
    this.current = value
    this.length = value.length
    this.count = 0
    this.read = 0
    this.batches.length = 0
    this.batchChars = 0
  }

  private commit(): void {
    const add = this.pieces.join('')
    this.count = 0
    this.read = 0
    this.batches.push(add)
    this.batchChars += add.length
    if (this.batchChars < LARGE) {
      this.mid = this.mid.length === 0 ? add : this.mid + add
      this.current = this.mid
      return
    }
    const large = this.batches.length === 1 ? add : this.batches.join('')
    this.batches.length = 0
    this.batchChars = 0
    this.base = this.base.length === 0 ? large : this.base + large
    this.mid = this.base
    this.current = this.base
  }
}
