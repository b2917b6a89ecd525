/** Network rules shared by downloads and parking, below both: which addresses are internal (./addresses). */
export type { InternalAddressKind } from './addresses';
export {
	INTERNAL_ADDRESS_LABELS,
	addressKind,
	internalAddressKind,
	internalAddressText,
	ipLiteral,
	isLocalhostName,
	mappedIpv4Of,
} from './addresses';
