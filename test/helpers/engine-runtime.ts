/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals */
/**
 * Boots the pieces of n8n-core that a workflow execution needs, once per jest module registry
 * (i.e. once per test file): instance settings in a temp folder, the binary data service in
 * filesystem mode, the isolated-vm expression engine (n8n 2.41's default) and a silent logger.
 * Also holds the small in-process stand-ins n8n's CLI normally provides: a node-type registry and the
 * "additional data" object WorkflowExecute and the node contexts read (the credentials helper that applies the
 * credential class's real `authenticate` is in ./engine-credentials.ts).
 *
 * Used by ./engine.ts; tests should import that file, not this one.
 */
import { mkdtempSync, rmSync } from 'fs';
import { createRequire } from 'module';
import { BinaryDataConfig, BinaryDataService, ExecutionLifecycleHooks, InstanceSettings } from 'n8n-core';
import type {
	ICredentialsHelper,
	IDataObject,
	INodeParameters,
	INodeType,
	INodeTypes,
	IVersionedNodeType,
	IWorkflowBase,
	IWorkflowExecuteAdditionalData,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import { Expression, LoggerProxy, NodeHelpers, UnexpectedError } from 'n8n-workflow';
import { tmpdir } from 'os';
import { join } from 'path';

/**
 * n8n-core's own DI container. The project root also has an older @n8n/di (pulled by the lint
 * tooling); n8n-core resolves its nested copy, and services only exist in that one.
 */
const requireFromCore = createRequire(require.resolve('n8n-core'));
const container = (requireFromCore('@n8n/di') as typeof import('@n8n/di')).Container;

/** `getService(service)` on n8n-core's container. */
export function getService<T>(service: abstract new (...args: never[]) => T): T {
	return container.get(service as never) as T;
}
const requireFromWorkflow = createRequire(require.resolve('n8n-workflow'));

/** Env vars n8n's config classes read while the harness instantiates them (restored afterwards). */
function withEnv<T>(vars: Record<string, string>, fn: () => T): T {
	const saved: Record<string, string | undefined> = {};
	for (const [key, value] of Object.entries(vars)) {
		saved[key] = process.env[key];
		process.env[key] = value;
	}
	try {
		return fn();
	} finally {
		for (const [key, value] of Object.entries(saved)) {
			if (value === undefined) delete process.env[key];
			else process.env[key] = value;
		}
	}
}

export interface EngineRuntime {
	/** Temp folder holding n8n's user folder and the filesystem binary data store. */
	tempDir: string;
	binaryDataService: BinaryDataService;
	/** 'vm' (isolated-vm, n8n's default) unless N8N_EXPRESSION_ENGINE says otherwise. */
	expressionEngine: string;
}

let runtimePromise: Promise<EngineRuntime> | undefined;
let tempDir: string | undefined;
let cleanupRegistered = false;

async function bootstrap(): Promise<EngineRuntime> {
	const dir = mkdtempSync(join(tmpdir(), 'runcomfy-n8n-engine-'));
	tempDir = dir;
	const engine = (process.env.N8N_EXPRESSION_ENGINE ?? 'vm') as 'vm' | 'legacy' | 'quickjs';
	const binaryDataService = withEnv(
		{
			N8N_USER_FOLDER: dir,
			N8N_ENCRYPTION_KEY: 'runcomfy-engine-test-key',
			// Silence n8n's logger unless the developer asks for output (N8N_LOG_LEVEL=debug).
			N8N_LOG_LEVEL: process.env.N8N_LOG_LEVEL ?? 'silent',
			N8N_DEFAULT_BINARY_DATA_MODE: 'filesystem',
			N8N_BINARY_DATA_STORAGE_PATH: join(dir, 'storage'),
			N8N_DIAGNOSTICS_ENABLED: 'false',
		},
		() => {
			// Instantiate the config-reading singletons while the env above is in place.
			getService(InstanceSettings);
			const config = getService(BinaryDataConfig);
			if (config.mode !== 'filesystem') {
				throw new UnexpectedError(`Harness expected binary data mode "filesystem", got "${config.mode}"`);
			}
			return getService(BinaryDataService);
		},
	);
	await binaryDataService.init();
	bypassProxyForLoopback();
	if (engine !== 'legacy') await initExpressionEngine(engine);
	return { tempDir: dir, binaryDataService, expressionEngine: Expression.getActiveImplementation() };
}

/**
 * n8n's HTTP layer honours HTTP(S)_PROXY like a real instance. Tests only talk to loopback, so on a
 * machine with a proxy configured the harness adds loopback to NO_PROXY (process-wide, additive).
 */
function bypassProxyForLoopback(): void {
	const env = process.env;
	if (!(env.HTTP_PROXY || env.http_proxy || env.HTTPS_PROXY || env.https_proxy)) return;
	const current = (env.NO_PROXY ?? env.no_proxy ?? '')
		.split(',')
		.map((h) => h.trim())
		.filter(Boolean);
	const merged = [...new Set([...current, '127.0.0.1', 'localhost', '::1'])].join(',');
	env.NO_PROXY = merged;
	env.no_proxy = merged;
}

/**
 * Same as `Expression.initExpressionEngine({ engine, poolSize: 1, maxCodeCacheSize: 1024,
 * bridgeTimeout: 5000, bridgeMemoryLimit: 128, compileCache: true, lazyAcquire: true })` (n8n's CLI
 * defaults but for the last two, which are n8n settings too), which cannot run under jest
 * as-is: it loads @n8n/expression-runtime with a dynamic `import()`, and jest's module sandbox
 * rejects that without --experimental-vm-modules. So the harness loads the runtime with require()
 * and builds the evaluator exactly as n8n-workflow 2.41's initExpressionEngine does.
 * Like n8n, every execution that evaluates an expression gets a fresh isolate. The compile cache
 * and the lazy acquisition only spare CPU: the bundle is not parsed anew for each isolate, and an
 * execution without expressions takes none. N8N_EXPRESSION_ENGINE_COMPILE_CACHE=false and
 * N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE=false (n8n's own variables) give n8n's defaults;
 * N8N_EXPRESSION_ENGINE_POOL_SIZE keeps more warm isolates, and N8N_EXPRESSION_ENGINE=legacy
 * skips isolated-vm entirely for quick local iterations.
 */
async function initExpressionEngine(engine: 'vm' | 'quickjs'): Promise<void> {
	const runtime = requireFromWorkflow('@n8n/expression-runtime') as typeof import('@n8n/expression-runtime');
	const { expressionSandboxHooks } = requireFromWorkflow(
		'n8n-workflow/expression-sandboxing',
	) as typeof import('n8n-workflow/dist/cjs/expression-sandboxing');
	const on = (name: string) => process.env[name] !== 'false';
	const bridgeOptions = { timeout: 5000, memoryLimit: 128, logger: LoggerProxy, compileCache: on('N8N_EXPRESSION_ENGINE_COMPILE_CACHE') };
	const evaluator = new runtime.ExpressionEvaluator({
		createBridge: () => (engine === 'quickjs' ? new runtime.QuickJsBridge(bridgeOptions) : new runtime.IsolatedVmBridge(bridgeOptions)),
		maxCodeCacheSize: 1024,
		poolSize: Number(process.env.N8N_EXPRESSION_ENGINE_POOL_SIZE ?? 1),
		lazyAcquire: on('N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE'),
		hooks: expressionSandboxHooks,
		logger: LoggerProxy,
	});
	await evaluator.initialize();
	const statics = Expression as unknown as { expressionEngine: string; vmEvaluator?: unknown };
	statics.expressionEngine = engine;
	statics.vmEvaluator = evaluator;
	if (Expression.getActiveImplementation() !== engine) {
		throw new UnexpectedError(`Harness could not activate the "${engine}" expression engine`);
	}
}

/** Registers teardown with jest when loaded inside a test file (no-op elsewhere). */
export function registerCleanup(): void {
	if (cleanupRegistered) return;
	const hook = (globalThis as { afterAll?: (fn: () => Promise<void>) => void }).afterAll;
	if (typeof hook !== 'function') return;
	try {
		hook(async () => {
			await disposeEngine();
		});
		cleanupRegistered = true;
	} catch {
		// Hooks cannot be registered from inside a running test; the OS temp dir is then left behind.
	}
}

/** Disposes the expression engine and removes the temp folder. Safe to call more than once. */
export async function disposeEngine(): Promise<void> {
	if (!runtimePromise) return;
	const pending = runtimePromise;
	runtimePromise = undefined;
	await pending.catch(() => undefined);
	await Expression.disposeExpressionEngine();
	if (tempDir) rmSync(tempDir, { recursive: true, force: true });
	tempDir = undefined;
}

export async function getRuntime(): Promise<EngineRuntime> {
	runtimePromise ??= bootstrap();
	return await runtimePromise;
}

// ---------------------------------------------------------------------------------------------
// Node types

export class HarnessNodeTypes implements INodeTypes {
	constructor(private readonly types: Record<string, INodeType | IVersionedNodeType>) {}

	getByName(type: string): INodeType | IVersionedNodeType {
		const nodeType = this.types[type];
		if (!nodeType) throw new UnexpectedError(`Unknown node type "${type}" in the test harness`);
		return nodeType;
	}

	getByNameAndVersion(type: string, version?: number): INodeType {
		return NodeHelpers.getVersionedNodeType(this.getByName(type), version);
	}

	getKnownTypes(): IDataObject {
		return {};
	}
}

/** The type name n8n gives a community node: `<package>.<description.name>`. */
export const PACKAGE_NAME = 'n8n-nodes-runcomfy';

export function qualifiedTypeName(node: INodeType | IVersionedNodeType): string {
	const name = node.description.name;
	return name.includes('.') ? name : `${PACKAGE_NAME}.${name}`;
}

export function defaultTypeVersion(node: INodeType | IVersionedNodeType): number {
	if ('nodeVersions' in node) return node.currentVersion;
	const version = (node as INodeType).description.version;
	return Array.isArray(version) ? Math.max(...version) : version;
}

// ---------------------------------------------------------------------------------------------
// Additional data

let executionCounter = 0;

export function nextExecutionId(): string {
	executionCounter += 1;
	return `${executionCounter}`;
}

const notAvailable = (what: string) => async () => {
	throw new UnexpectedError(`${what} is not available in the in-process test harness`);
};

export function createAdditionalData(options: {
	credentialsHelper: ICredentialsHelper;
	executionId?: string;
	hooks?: ExecutionLifecycleHooks;
	currentNodeParameters?: INodeParameters;
	workflowId?: string;
}): IWorkflowExecuteAdditionalData {
	const base = 'http://localhost:5678/';
	const additionalData: Partial<IWorkflowExecuteAdditionalData> = {
		credentialsHelper: options.credentialsHelper,
		executionId: options.executionId,
		hooks: options.hooks,
		currentNodeParameters: options.currentNodeParameters,
		workflowId: options.workflowId,
		currentNodeExecutionIndex: 0,
		restApiUrl: `${base}rest`,
		instanceBaseUrl: base,
		formBaseUrl: `${base}form`,
		formWaitingBaseUrl: `${base}form-waiting`,
		formTestBaseUrl: `${base}form-test`,
		webhookBaseUrl: `${base}webhook`,
		webhookWaitingBaseUrl: `${base}webhook-waiting`,
		webhookTestBaseUrl: `${base}webhook-test`,
		mcpBaseUrl: `${base}mcp`,
		mcpTestBaseUrl: `${base}mcp-test`,
		variables: {},
		userId: 'harness-user',
		executeWorkflow: notAvailable('executeWorkflow'),
		getRunExecutionData: async () => undefined,
		getRuntimeCredential: async () => undefined,
		startRunnerTask: notAvailable('startRunnerTask'),
		logAiEvent: () => {},
	};
	return additionalData as IWorkflowExecuteAdditionalData;
}

export function createHooks(mode: WorkflowExecuteMode, executionId: string, workflowData: IWorkflowBase): ExecutionLifecycleHooks {
	return new ExecutionLifecycleHooks(mode, executionId, workflowData);
}
