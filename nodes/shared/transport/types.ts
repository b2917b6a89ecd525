/**
 * The service's wire types and facts, as the transport sends and receives them: the credential, the
 * context a request is made from, and the records of each API area. Nothing here imports from above the
 * transport; ../types.ts re-exports all of it for the nodes.
 */
import type { IDataObject, IExecuteFunctions, IHookFunctions, ILoadOptionsFunctions, IPollFunctions } from 'n8n-workflow';

/** Any JSON value an IDataObject may hold. */
export type JsonValue = IDataObject[string];

/** Every n8n context our shared modules are called from; all of them can make authenticated requests. */
export type RunComfyContext = IExecuteFunctions | ILoadOptionsFunctions | IPollFunctions | IHookFunctions;

export const CREDENTIAL_NAME = 'runComfyApi';

/** The three API families of the service; each has its own base URL in the credential. */
export type ApiFamily = 'model' | 'serverless' | 'trainer';

export interface RunComfyCredentials {
	accessToken: string;
	modelApiBaseUrl: string;
	serverlessApiBaseUrl: string;
	trainerApiBaseUrl: string;
	allowedDownloadHosts: string[];
}

// ---------- Model API ----------

export interface JsonSchemaProperty extends IDataObject {
	type?: string | string[];
	description?: string;
	default?: JsonValue;
	enum?: JsonValue[];
	minimum?: number;
	maximum?: number;
	maxLength?: number;
	minItems?: number;
	maxItems?: number;
	multipleOf?: number;
	format?: string;
	items?: JsonSchemaProperty;
	validations?: IDataObject[];
}

export interface InputSchema extends IDataObject {
	type?: string;
	required?: string[];
	properties?: Record<string, JsonSchemaProperty>;
}

export interface ModelEntry extends IDataObject {
	model_id: string;
	display_name?: string;
	description?: string;
	publisher?: string;
	categories?: string[];
	kind?: string;
	base_price_usd?: number;
	price_unit?: string;
	pricing_note?: string;
	inputs?: string[];
	required_inputs?: string[];
	input_schema?: InputSchema;
}

export interface ModelList extends IDataObject {
	models: ModelEntry[];
	total: number;
	limit: number;
	offset: number;
}

/** Answer to a paid submission (model run, deployment inference). */
export interface RequestHandle extends IDataObject {
	request_id: string;
	status_url?: string;
	result_url?: string;
	cancel_url?: string;
}

export interface StatusRecord extends IDataObject {
	status: string;
	queue_position?: number;
	instance_id?: string;
}

export interface ResultRecord extends IDataObject {
	status: string;
	output?: JsonValue;
	outputs?: JsonValue;
	error?: JsonValue;
	cost?: number;
}

// ---------- Deployments ----------

export interface Deployment extends IDataObject {
	id: string;
	name?: string;
	status?: string;
	is_enabled?: boolean;
	payload?: IDataObject;
	workflow_api_json?: IDataObject;
}

export const HARDWARE_SKUS = ['TURING_16', 'AMPERE_24', 'AMPERE_48', 'ADA_48_PLUS', 'AMPERE_80', 'ADA_80_PLUS', 'HOPPER_141'] as const;

// ---------- Trainer ----------

export interface Dataset extends IDataObject {
	id: string;
	name: string;
	status: string;
	error?: string;
	files?: Array<{ filename: string; size_bytes?: number }>;
}

export interface SignedUpload extends IDataObject {
	upload_url: string;
	method?: string;
	headers?: Record<string, string>;
}

export const TRAINING_GPU_TYPES = ['ADA_80_PLUS', 'HOPPER_141'] as const;
export const DIRECT_UPLOAD_MAX_BYTES = 150_000_000;

export interface TrainingJob extends IDataObject {
	id?: string;
	job_id?: string;
	name?: string;
	status?: string;
	progress?: { current_step?: number; total_steps?: number; percent?: number };
	error?: JsonValue;
}

export interface Balance extends IDataObject {
	balance_usd: number;
	balance_microdollars: number;
	currency?: string;
}
