import { getDb, type Db } from './client';
import { Prisma } from './generated/client';

/**
 * The value stored under `name`, storing `proposed` first when there is none. When nodes start at
 * once, the first insert wins and every node gets the winner's value.
 */
export const settleInstanceSetting = async (name: string, proposed: string, db: Db = getDb()): Promise<string> => {
  const existing = await db.instanceSetting.findUnique({ where: { name } });
  if (existing) return existing.value;
  try {
    return (await db.instanceSetting.create({ data: { name, value: proposed } })).value;
  } catch (error) {
    if (!(error instanceof Prisma.PrismaClientKnownRequestError) || error.code !== 'P2002') throw error;
    return (await db.instanceSetting.findUniqueOrThrow({ where: { name } })).value;
  }
};
