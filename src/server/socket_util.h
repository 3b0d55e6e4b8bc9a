// Socket set-up for the HTTP front (server/http_listener.h): the listening socket, the
// open-file limit, client addresses as text.
#pragma once

#include <sys/socket.h>

#include <string>

namespace realmt::server {

// A non-blocking listening socket bound to host:port (port 0: a free one), with the largest
// backlog; *bound_port receives the port. Throws naming host and port when it cannot bind.
int open_listening_socket(const std::string& host, int port, int* bound_port);

// How many connections fit under the open-file limit, at most `wanted`: raises the soft limit
// towards the hard one when it is lower than wanted + spare descriptors.
int fit_open_file_limit(int wanted, int spare);

// "127.0.0.1", "::1", ...
std::string peer_address(const sockaddr_storage& address);

}  // namespace realmt::server
