import { getDb } from '../../db/client';

/** Pending jobs per job name (retries not due yet included), one grouped count on the (status, runAfter) index. */
export const countQueuedJobs = async (): Promise<Map<string, number>> => {
  const groups = await getDb().job.groupBy({ by: ['name'], where: { status: 'pending' }, _count: { _all: true } });
  return new Map(groups.map((group) => [group.name, group._count._all]));
};
