/**
 * CONTRACT STUB (to be implemented by the transport work): one typed function per endpoint of the service.
 * Every request goes through `apiRequest`, which uses `httpRequestWithAuthentication` with the credential's
 * base URL for the family, maps errors to NodeApiError with a hint, and retries reads/polls only.
 * Signatures here are what nodes code against; keep them stable.
 */
import type { IDataObject } from 'n8n-workflow';

import type {
	ApiFamily,
	Balance,
	Dataset,
	Deployment,
	ModelEntry,
	ModelList,
	RequestHandle,
	ResultRecord,
	RunComfyContext,
	RunComfyCredentials,
	SignedUpload,
	StatusRecord,
	TrainingJob,
} from '../types';

export interface ApiRequestSpec {
	family: ApiFamily;
	method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
	/** Path below the family's base URL, already encoded (use `encodeModelId` / `encodeId`). */
	path: string;
	qs?: IDataObject;
	body?: unknown;
	/** A paid submission: never retried unless the service provably did not accept it. */
	paid?: boolean;
	/** Item index for error attribution. */
	itemIndex?: number;
}

const notImplemented = (): never => {
	throw new Error('not implemented yet');
};

export async function getCredentials(_ctx: RunComfyContext): Promise<RunComfyCredentials> {
	return notImplemented();
}

export async function apiRequest<T = IDataObject>(_ctx: RunComfyContext, _spec: ApiRequestSpec): Promise<T> {
	return notImplemented();
}

/** Model ids keep their slashes; each segment is URL-encoded; `.`/`..`, empty, `?`, `#`, `\` are refused. */
export function encodeModelId(_modelId: string): string {
	return notImplemented();
}

/** Any other id used in a path (request, deployment, dataset, job, instance). */
export function encodeId(_id: string, _what: string): string {
	return notImplemented();
}

// Model API
export interface ListModelsQuery {
	search?: string;
	category?: string;
	kind?: string;
	includeSchema?: boolean;
	limit?: number;
	offset?: number;
}
export const listModels = async (_ctx: RunComfyContext, _q: ListModelsQuery): Promise<ModelList> => notImplemented();
export const listCategories = async (_ctx: RunComfyContext): Promise<string[]> => notImplemented();
export const getModel = async (_ctx: RunComfyContext, _modelId: string): Promise<ModelEntry> => notImplemented();
export const submitModelRun = async (_ctx: RunComfyContext, _modelId: string, _body: IDataObject, _itemIndex?: number): Promise<RequestHandle> => notImplemented();
export const getModelRequestStatus = async (_ctx: RunComfyContext, _requestId: string): Promise<StatusRecord> => notImplemented();
export const getModelRequestResult = async (_ctx: RunComfyContext, _requestId: string, _opts?: { includeCost?: boolean }): Promise<ResultRecord> => notImplemented();
export const cancelModelRequest = async (_ctx: RunComfyContext, _requestId: string): Promise<IDataObject> => notImplemented();

// Deployments
export const listDeployments = async (_ctx: RunComfyContext, _opts?: { ids?: string[]; includePayload?: boolean; includeReadme?: boolean }): Promise<Deployment[]> => notImplemented();
export const getDeployment = async (_ctx: RunComfyContext, _id: string, _opts?: { includePayload?: boolean; includeReadme?: boolean }): Promise<Deployment> => notImplemented();
export const createDeployment = async (_ctx: RunComfyContext, _body: IDataObject): Promise<Deployment> => notImplemented();
/** Fills in `name` from the current deployment when the patch lacks it (the service requires it). */
export const updateDeployment = async (_ctx: RunComfyContext, _id: string, _patch: IDataObject): Promise<Deployment> => notImplemented();
export const deleteDeployment = async (_ctx: RunComfyContext, _id: string): Promise<IDataObject> => notImplemented();
export interface InferenceBody extends IDataObject {
	overrides?: IDataObject;
	workflow_api_json?: IDataObject;
	extra_data?: IDataObject;
}
export const submitDeploymentInference = async (_ctx: RunComfyContext, _deploymentId: string, _body: InferenceBody, _opts?: { webhookUrl?: string; webhookIntermediateStatus?: boolean; itemIndex?: number }): Promise<RequestHandle> => notImplemented();
export const getDeploymentRequestStatus = async (_ctx: RunComfyContext, _deploymentId: string, _requestId: string): Promise<StatusRecord> => notImplemented();
export const getDeploymentRequestResult = async (_ctx: RunComfyContext, _deploymentId: string, _requestId: string): Promise<ResultRecord> => notImplemented();
export const cancelDeploymentRequest = async (_ctx: RunComfyContext, _deploymentId: string, _requestId: string): Promise<IDataObject> => notImplemented();
export const deleteDeploymentRequest = async (_ctx: RunComfyContext, _deploymentId: string, _requestId: string): Promise<IDataObject> => notImplemented();
export const callInstanceProxy = async (_ctx: RunComfyContext, _deploymentId: string, _instanceId: string, _path: string, _body?: IDataObject): Promise<unknown> => notImplemented();

// Datasets
export const createDataset = async (_ctx: RunComfyContext, _name?: string): Promise<Dataset> => notImplemented();
export const listDatasets = async (_ctx: RunComfyContext): Promise<Dataset[]> => notImplemented();
export const getDatasetStatus = async (_ctx: RunComfyContext, _id: string): Promise<Dataset> => notImplemented();
export const deleteDataset = async (_ctx: RunComfyContext, _id: string): Promise<IDataObject> => notImplemented();
/** Direct multipart upload (one part named `file`), up to 150 MB. */
export const uploadDatasetFile = async (_ctx: RunComfyContext, _id: string, _file: { fileName: string; contentType: string; data: Buffer }): Promise<IDataObject> => notImplemented();
/** A caption or other text file written directly. */
export const uploadDatasetText = async (_ctx: RunComfyContext, _id: string, _fileName: string, _text: string): Promise<IDataObject> => notImplemented();
export const getDatasetUploadUrls = async (_ctx: RunComfyContext, _id: string, _sizes: Record<string, number>): Promise<Record<string, SignedUpload>> => notImplemented();
/** PUT the bytes to a signed URL: no bearer token, exact Content-Length, body may be a stream. */
export const putSignedUpload = async (_ctx: RunComfyContext, _upload: SignedUpload, _body: unknown, _sizeBytes: number): Promise<void> => notImplemented();

// Training jobs
export interface TrainingSubmit {
	configFile: string;
	configFormat: 'yaml' | 'json';
	gpuType: string;
	gpuCount?: number;
	gpuId?: string;
}
export const submitTrainingJob = async (_ctx: RunComfyContext, _req: TrainingSubmit, _itemIndex?: number): Promise<TrainingJob> => notImplemented();
export const getTrainingJobStatus = async (_ctx: RunComfyContext, _jobId: string): Promise<TrainingJob> => notImplemented();
export const getTrainingJobResult = async (_ctx: RunComfyContext, _jobId: string): Promise<IDataObject> => notImplemented();
export const cancelTrainingJob = async (_ctx: RunComfyContext, _jobId: string): Promise<IDataObject> => notImplemented();
export const resumeTrainingJob = async (_ctx: RunComfyContext, _jobId: string, _gpu?: { gpuType?: string; gpuCount?: number }, _itemIndex?: number): Promise<TrainingJob> => notImplemented();
export const editTrainingJob = async (_ctx: RunComfyContext, _jobId: string, _config: { configFile: string; configFormat: 'yaml' | 'json' }): Promise<IDataObject> => notImplemented();

// Account
export const getBalance = async (_ctx: RunComfyContext): Promise<Balance> => notImplemented();
