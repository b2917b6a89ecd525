/**
 * The part of n8n's CLI CredentialsHelper that matters for a node, for the in-process harness (./engine.ts).
 */
import { Credentials } from 'n8n-core';
import type {
	ICredentialDataDecryptedObject,
	ICredentials,
	ICredentialType,
	IDataObject,
	IHttpRequestOptions,
	INode,
	INodeCredentialsDetails,
	INodeParameters,
	INodeProperties,
	IRequestOptionsSimplified,
	IWorkflowExecuteAdditionalData,
	Workflow,
} from 'n8n-workflow';
import { ICredentialsHelper, NodeHelpers, UnexpectedError } from 'n8n-workflow';

/**
 * The part of n8n's CLI CredentialsHelper that matters for a node: returns the stored data for a
 * credential type (with the credential's defaults applied, like `applyDefaultsAndOverwrites`)
 * and authenticates requests with the credential class's own `authenticate`.
 */
export class HarnessCredentialsHelper extends ICredentialsHelper {
	constructor(
		private readonly credentialTypes: Record<string, ICredentialType>,
		private readonly data: Record<string, ICredentialDataDecryptedObject>,
	) {
		super();
	}

	getParentTypes(): string[] {
		return [];
	}

	isCredentialUsableByNode(): boolean {
		return true;
	}

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		requestOptions: IHttpRequestOptions | IRequestOptionsSimplified,
		workflow?: Workflow,
		node?: INode,
	): Promise<IHttpRequestOptions> {
		const credentialType = this.credentialTypes[typeName];
		const authenticate = credentialType?.authenticate;
		if (authenticate === undefined) return requestOptions as IHttpRequestOptions;
		if (typeof authenticate === 'function') {
			return await authenticate(credentials, requestOptions as IHttpRequestOptions);
		}
		// Generic form: resolve `={{ $credentials.x }}` values like n8n's CredentialsHelper does.
		const options = requestOptions as IHttpRequestOptions & Record<string, unknown>;
		if (authenticate.type === 'generic' && workflow && node) {
			for (const [outerKey, inner] of Object.entries(authenticate.properties)) {
				const target = { ...((options[outerKey] as IDataObject | undefined) ?? {}) };
				for (const [key, value] of Object.entries(inner as IDataObject)) {
					target[key] = workflow.expression.getParameterValue(
						value as string,
						null,
						0,
						0,
						node.name,
						[],
						'internal',
						{ $credentials: credentials },
						undefined,
						true,
					) as string;
				}
				options[outerKey] = target;
			}
		}
		return options;
	}

	/** Our credential has no preAuthentication; n8n's helper then returns undefined as well. */
	async preAuthentication(): Promise<ICredentialDataDecryptedObject | undefined> {
		return undefined;
	}

	async runPreAuthentication(): Promise<ICredentialDataDecryptedObject | undefined> {
		return undefined;
	}

	async getCredentials(nodeCredentials: INodeCredentialsDetails, type: string): Promise<ICredentials> {
		return new Credentials({ id: nodeCredentials.id, name: nodeCredentials.name }, type);
	}

	async getDecrypted(
		_additionalData: IWorkflowExecuteAdditionalData,
		_nodeCredentials: INodeCredentialsDetails,
		type: string,
	): Promise<ICredentialDataDecryptedObject> {
		const stored = this.data[type];
		if (stored === undefined) {
			throw new UnexpectedError(`The test harness has no credentials of type "${type}"`);
		}
		return this.withDefaults(type, stored);
	}

	withDefaults(type: string, stored: ICredentialDataDecryptedObject): ICredentialDataDecryptedObject {
		const properties = this.credentialTypes[type]?.properties ?? [];
		const withDefaults = NodeHelpers.getNodeParameters(properties, stored as INodeParameters, true, false, null, null);
		return { ...(withDefaults ?? {}), ...structuredClone(stored) } as ICredentialDataDecryptedObject;
	}

	async updateCredentials(): Promise<void> {}

	async updateCredentialsOauthTokenData(): Promise<void> {}

	getCredentialsProperties(type: string): INodeProperties[] {
		return this.credentialTypes[type]?.properties ?? [];
	}
}
