/**
 * A string that grows by appending, one chunk at a time, for the life of a long stream.
 *
 * Built with `+=`, such a string is a chain of V8 cons-string nodes: one allocation per chunk,
 * and a long-lived chain of a hundred thousand nodes makes every major GC walk it. A Rope
 * collects pieces in an array and joins them 128 at a time, so the chain has one node per
 * batch; V8 flattens it once, when someone reads the whole.
 * @internal
 * @module
 */

const BATCH = 128

export class Rope {
  private base = ''
  // written in place and never shrunk: no allocation per piece once it has grown to a batch
  private readonly pieces: string[] = []
  private count = 0
  /** Length of the whole string. */
  length = 0

  push(piece: string): void {
    if (piece.length === 0) return
    this.pieces[this.count++] = piece
    this.length += piece.length
    if (this.count === BATCH) {
      this.base += this.pieces.join('')
      this.count = 0
    }
  }

  /** The whole string. */
  get value(): string {
    if (this.count > 0) {
      const all = this.count === this.pieces.length
      this.base += this.count === 1 ? this.pieces[0]! : all ? this.pieces.join('') : this.pieces.slice(0, this.count).join('')
      this.count = 0
    }
    return this.base
  }
}
