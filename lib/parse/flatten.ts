/**
 * Strings built by `+=` one chunk at a time are chains of V8 cons-string nodes; a long-lived
 * chain of a hundred thousand nodes makes every major GC walk it. Flattening whenever the
 * string has doubled since the last time keeps the chains short at O(n) total cost.
 * @internal
 * @module
 */

/** Tracks one growing string and flattens it on a doubling schedule. */
export class Flattener {
  private mark = 4096

  /** Returns `s`, flattened in place by V8 if it has doubled since the last flatten. */
  settle(s: string): string {
    if (s.length > this.mark) {
      this.mark = s.length * 2
      // indexOf makes V8 flatten the receiver; searching from the end costs nothing more
      s.indexOf('\u0000', s.length - 1)
    }
    return s
  }
}
