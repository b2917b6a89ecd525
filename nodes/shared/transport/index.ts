/**
 * The shared transport: one typed function per endpoint of the service.
 * Every request goes through `apiRequest`, which uses `httpRequestWithAuthentication` with the credential's
 * base URL for the family, maps errors to NodeApiError with a hint, and retries reads/polls only (paid
 * submissions only when the service provably did not accept them).
 * Signatures here are what nodes code against; keep them stable.
 *
 * Files: request.ts (apiRequest, retries), errors.ts (error mapping, hints, token scrubbing), ids.ts (path
 * ids), credentials.ts (getCredentials), retry.ts (backoff, Retry-After), endpoints/*.ts (one per API area).
 */
export { getCredentials, parseAllowedHosts, baseUrlFor } from './credentials';
export {
	apiRequest,
	apiRequestFull,
	cancelSignalOf,
	getRetryPolicy,
	setRetryPolicy,
	DEFAULT_TIMEOUT_MS,
} from './request';
export type { ApiRequestSpec, ApiAnswer, RetryMode, ExpectedAnswer } from './request';
export type { RetryPolicy } from './retry';
export { DEFAULT_RETRY_POLICY, parseRetryAfter } from './retry';
export { encodeModelId, encodeId, encodeProxyPath } from './ids';
export { KNOWN_ERROR_CODES, hintFor, renderValidationDetail, redact } from './errors';
export type { Subject, SubjectKind } from './errors';

// Model API
export {
	listModels,
	listCategories,
	getModel,
	submitModelRun,
	getModelRequestStatus,
	getModelRequestResult,
	cancelModelRequest,
} from './endpoints/model';
export type { ListModelsQuery } from './endpoints/model';

// Deployments
export {
	listDeployments,
	getDeployment,
	createDeployment,
	updateDeployment,
	deleteDeployment,
	submitDeploymentInference,
	getDeploymentRequestStatus,
	getDeploymentRequestResult,
	cancelDeploymentRequest,
	deleteDeploymentRequest,
	callInstanceProxy,
	resetQueueVersionCache,
} from './endpoints/deployments';
export type { InferenceBody, DeploymentIncludes } from './endpoints/deployments';

// Datasets
export {
	createDataset,
	listDatasets,
	getDatasetStatus,
	deleteDataset,
	uploadDatasetFile,
	uploadDatasetText,
	getDatasetUploadUrls,
	putSignedUpload,
} from './endpoints/datasets';

// Training jobs
export {
	submitTrainingJob,
	getTrainingJobStatus,
	getTrainingJobResult,
	cancelTrainingJob,
	resumeTrainingJob,
	editTrainingJob,
} from './endpoints/training';
export type { TrainingSubmit } from './endpoints/training';

// Account
export { getBalance } from './endpoints/account';
