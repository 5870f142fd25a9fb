import type { JobSlots } from '../jobs/define-job';

// The worker's slots, grouped as the job definitions name them: how many jobs may run in total,
// and which kinds of job cannot be claimed now because their group is full.

export type SlotPlan = {
  /** All groups' sizes added up: the most jobs that ever run at once. */
  total: number;
  /** Kinds of job whose group is full, given the kinds running now (one entry per running job). */
  fullKinds: (runningKinds: readonly string[]) => string[];
};

export const planJobSlots = (slotsByKind: Record<string, JobSlots>): SlotPlan => {
  const sizes = new Map<string, number>();
  for (const slots of Object.values(slotsByKind)) {
    if (sizes.has(slots.name)) continue;
    const size = slots.size();
    if (!Number.isInteger(size) || size < 1) throw new RangeError(`job slots "${slots.name}" must be a positive integer (got ${size})`);
    sizes.set(slots.name, size);
  }
  const groupOf = (kind: string) => slotsByKind[kind]?.name;
  return {
    total: [...sizes.values()].reduce((sum, size) => sum + size, 0),
    fullKinds: (runningKinds) => {
      const used = new Map<string, number>();
      for (const kind of runningKinds) {
        const group = groupOf(kind);
        if (group !== undefined) used.set(group, (used.get(group) ?? 0) + 1);
      }
      return Object.keys(slotsByKind).filter((kind) => {
        const group = groupOf(kind);
        return group !== undefined && (used.get(group) ?? 0) >= (sizes.get(group) ?? 0);
      });
    },
  };
};
