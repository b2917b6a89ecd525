/**
 * A careful reader for the subset of YAML that training configs use, so that the keys the platform constrains
 * can be checked before a paid call. It reads plain scalars as YAML 1.1 (PyYAML, ai-toolkit's reader) does, and
 * refuses what it does not read (aliases, merge keys, custom tags) instead of guessing.
 */
import { BlockReader } from './block';

export { YamlSubsetError } from './scalars';

/** Reads the first document of a YAML text (the subset used by training configs). Throws YamlSubsetError. */
export function parseYamlSubset(source: string): unknown {
	return new BlockReader(source).read();
}
