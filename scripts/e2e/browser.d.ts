/** Types of scripts/e2e/browser.js (headless Chromium for the editor tests). */
import type { Browser, BrowserContext, Page } from 'playwright-core';

import type { Owner } from './n8n';

export const ARTIFACTS_DIR: string;
/** Installs Debian's chromium when missing (root or password-less sudo); rejects with the command to run otherwise. */
export function ensureChromium(): Promise<string>;
export function launch(): Promise<{
	browser: Browser;
	context: BrowserContext;
	page: Page;
}>;
export function screenshot(page: Page, name: string): Promise<string>;
export function signIn(page: Page, baseUrl: string, owner?: Owner): Promise<void>;
export function onPage<T>(context: BrowserContext, name: string, fn: (page: Page) => Promise<T>): Promise<T>;
