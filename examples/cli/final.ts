/**
 * `replay --final` and `replay --snapshots`: each turn's diffs applied, and the blocks printed,
 * once per turn or after every chunk that changed them.
 */
import { applyDiff, type Block, type DiffRecord } from 'tagstream'

/** Collects a turn's blocks from its diffs; writes `{"id","meta"?,"blocks"}` at its end. */
export class FinalTurns {
  private id = ''
  private meta: Record<string, unknown> | undefined
  private blocks: Block[] = []

  constructor(private readonly line: (s: string) => void) {}

  /** Takes one record. */
  push(r: DiffRecord): void {
    if (r.op === 'message') {
      this.id = r.id
      this.meta = r.meta
      this.blocks = []
    } else if (r.op === 'end') {
      this.line(JSON.stringify(this.meta === undefined ? { id: this.id, blocks: this.blocks } : { id: this.id, meta: this.meta, blocks: this.blocks }))
    } else if (r.op !== 'diagnostic') {
      this.blocks = applyDiff(this.blocks, r)
    }
  }
}

/**
 * `replay --snapshots`: the markers as they come, and between them the turn's whole block array
 * after each chunk that changed it (what `parse --snapshots` prints, framed per turn).
 */
export class SnapshotTurns {
  private blocks: Block[] = []
  private changed = false

  constructor(private readonly line: (s: string) => void) {}

  /** Takes one record. */
  push(r: DiffRecord): void {
    if (r.op === 'message' || r.op === 'end' || r.op === 'diagnostic') {
      this.flush()
      if (r.op === 'message') this.blocks = []
      this.line(JSON.stringify(r))
    } else {
      this.blocks = applyDiff(this.blocks, r)
      this.changed = true
    }
  }

  /** A chunk's records are all in: its snapshot, if the blocks changed. */
  flush(): void {
    if (!this.changed) return
    this.changed = false
    this.line(JSON.stringify(this.blocks))
  }
}
