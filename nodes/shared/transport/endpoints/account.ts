/** Account: the wallet balance (`{serverlessApiBaseUrl}/prod/v2/balance`), which funds all three products. */
import type { Balance, RunComfyContext } from '../types';
import { answerShapeError } from '../errors';
import { apiRequest } from '../request';
import { asObject } from './common';

const toNumber = (v: unknown): number => (typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN);

/** Wallet balance; a zero or negative balance is a normal answer. Either amount is derived from the other when missing. */
export const getBalance = async (ctx: RunComfyContext): Promise<Balance> => {
	const body = asObject(
		await apiRequest<unknown>(ctx, { family: 'serverless', method: 'GET', path: '/prod/v2/balance', operation: 'balance check' }),
	);
	const usd = toNumber(body.balance_usd);
	const micro = toNumber(body.balance_microdollars);
	if (!Number.isFinite(usd) && !Number.isFinite(micro)) {
		throw answerShapeError(ctx, {
			summary: 'No balance in the answer',
			message: 'RunComfy answered the balance request without a balance',
			description: 'Check the Serverless API Base URL in the RunComfy API credential.',
			body,
		});
	}
	return {
		...body,
		balance_usd: Number.isFinite(usd) ? usd : micro / 1_000_000,
		balance_microdollars: Number.isFinite(micro) ? micro : Math.round(usd * 1_000_000),
	};
};
