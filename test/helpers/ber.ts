// The BER codec lives in the SNMP client (the discovery sweep speaks it); the simulator and the tests
// use the same one through this path.
export * from '../../src/modules/snmp/client/ber.js';
