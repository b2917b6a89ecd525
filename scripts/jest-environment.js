'use strict';
/**
 * jest's Node environment with an ordinary global object (vm.constants.DONT_CONTEXTIFY) instead of a
 * contextified one: a contextified global answers every global name lookup (Math, Buffer, Object, …) through an
 * interceptor that V8 cannot optimise, which made the in-process suites' numeric code (the wait planner, the
 * sandbox's pictures) and module loading many times slower than in a plain Node process.
 */
const vm = require('vm');
const { TestEnvironment } = require('jest-environment-node');

class OrdinaryGlobalEnvironment extends TestEnvironment {
	constructor(config, context) {
		const { createContext } = vm;
		// jest-environment-node creates its context with a bare createContext() in its constructor.
		if (vm.constants && vm.constants.DONT_CONTEXTIFY) {
			vm.createContext = (contextObject, options) =>
				contextObject === undefined ? createContext(vm.constants.DONT_CONTEXTIFY, options) : createContext(contextObject, options);
		}
		try {
			super(config, context);
		} finally {
			vm.createContext = createContext;
		}
	}
}

module.exports = OrdinaryGlobalEnvironment;
