import { createTestPostgresDatabase, isTestPostgresReachable } from '../db/test-databases';
import { describeDataLayer } from './data-layer-scenario';

describeDataLayer('PostgreSQL at 127.0.0.1:5432', () => createTestPostgresDatabase(), { skip: !(await isTestPostgresReachable()) });
