/**
 * `replay --final`: each turn's diffs applied, and only the result printed, one line per turn.
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
