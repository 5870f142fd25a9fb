import { createTestSqliteDatabase } from '../db/test-databases';
import { describeDataLayer } from './data-layer-scenario';

describeDataLayer('SQLite', createTestSqliteDatabase);
