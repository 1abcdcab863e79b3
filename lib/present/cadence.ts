/**
 * The Presenter's `cadenceMs`: whether an update of the cursor block is due, and the one timer
 * that brings a merged update when it falls due.
 * @internal
 * @module
 */

/**
 * Spaces the updates of one still-partial block at least `ms` apart. An update asked for too
 * early is refused and one timer is armed; when it fires, `onDue` is called (the Presenter then
 * presents the block's latest state, through its task queue). With `ms === 0` it never refuses
 * and never reads the clock.
 *
 * Owns: the time of the last update of the current block, and the timer.
 * @internal
 */
export class Cadence {
  private lastUpdateAt = 0
  private timer: NodeJS.Timeout | undefined

  /**
   * @param ms - minimum interval between two updates of a block (0: none)
   * @param onDue - called when a refused update falls due
   */
  constructor(readonly ms: number, private readonly onDue: () => void) {}

  /**
   * Is it too early for another update of the block? Then the timer is armed (if it is not
   * already). The first update of a block (`shownAny` false) is never deferred.
   */
  deferred(shownAny: boolean): boolean {
    if (this.ms === 0 || !shownAny) return false
    const wait = this.lastUpdateAt + this.ms - Date.now()
    if (wait <= 0) return false
    if (this.timer === undefined) this.arm(wait)
    return true
  }

  /** Its own method: a closure made in `deferred` would cost it a context on every call. */
  private arm(wait: number): void {
    this.timer = setTimeout(() => {
      this.timer = undefined
      this.onDue()
    }, wait)
  }

  /** An update was shown now. */
  shown(): void {
    if (this.ms > 0) this.lastUpdateAt = Date.now()
  }

  /** A new block: its first update is not held back. */
  reset(): void {
    this.lastUpdateAt = 0
  }

  /** Disarms the timer (the end of input, or the stream destroyed). */
  cancel(): void {
    if (this.timer !== undefined) clearTimeout(this.timer)
    this.timer = undefined
  }
}
