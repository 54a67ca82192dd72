package io.smslice.agent;

import java.nio.file.Path;

/**
 * Where a claim's tenants reach the agent.
 *
 * @param directory host directory mounted into the claim's containers
 * @param socket the Unix socket inside that directory
 */
public record ClaimEndpoint(String namespace, String claim, Path directory, Path socket) {}
