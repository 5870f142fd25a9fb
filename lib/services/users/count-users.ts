import { getDb } from '../../db/client';

// Zero users means a fresh install: the dashboard offers to create the admin account.
export const countUsers = (): Promise<number> => getDb().user.count();
