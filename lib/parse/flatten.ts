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
  private readonly pieces: string[] = []
  /** Length of the whole string. */
  length = 0

  push(piece: string): void {
    if (piece.length === 0) return
    this.pieces.push(piece)
    this.length += piece.length
    if (this.pieces.length >= BATCH) this.settle()
  }

  /** The whole string. */
  get value(): string {
    if (this.pieces.length > 0) this.settle()
    return this.base
  }

  private settle(): void {
    this.base += this.pieces.length === 1 ? this.pieces[0]! : this.pieces.join('')
    this.pieces.length = 0
  }
}
