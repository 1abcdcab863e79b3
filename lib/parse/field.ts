/**
 * A growing string value that is kept trimmed as it grows, without ever re-reading what it
 * already holds. The parser feeds raw pieces; `core` is the trimmed value so far (it only ever
 * grows by appending), `ws` is trailing white space that becomes part of the value only if more
 * non-blank text follows. `delta` collects what `core` gained since the last {@link Field.take},
 * which lets the stream send `append` diffs without comparing long strings.
 * @internal
 * @module
 */

export class Field {
  core = ''
  ws = ''
  private delta = ''

  /** Adds raw text. Leading white space of the whole value is dropped, trailing is deferred. */
  push(piece: string): void {
    if (piece.length === 0) return
    if (this.core.length === 0) {
      piece = piece.trimStart()
      if (piece.length === 0) return
    }
    const body = piece.trimEnd()
    if (body.length === 0) {
      this.ws += piece
      return
    }
    const add = this.ws.length > 0 ? this.ws + body : body
    this.core += add
    this.delta += add
    this.ws = body.length === piece.length ? '' : piece.slice(body.length)
  }

  /**
   * The trimmed value of `core + ws + tail`, returned as the part that goes after `core`
   * (so the full value is `core + ext(tail)`). Used for text that is not yet resolved.
   */
  ext(tail: string): string {
    if (tail.length === 0) return ''
    const t = tail.trimEnd()
    if (t.length === 0) return ''
    return this.core.length === 0 ? t.trimStart() : this.ws + t
  }

  /** What `core` gained since the previous call. */
  take(): string {
    const d = this.delta
    this.delta = ''
    return d
  }
}
