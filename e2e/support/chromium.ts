import type { LaunchOptions } from '@playwright/test';
import { CHROMIUM_LAUNCH } from '../../lib/bench/player-page';

// Launch options for the system Chromium (the machine's flags, shared with the benchmark).
export const chromiumLaunchOptions: LaunchOptions = CHROMIUM_LAUNCH;
