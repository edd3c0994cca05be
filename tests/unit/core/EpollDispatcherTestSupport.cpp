#include "EpollDispatcherTestSupport.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

namespace sy::test {

namespace {

void setNonBlocking(int fd)
{
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
}

} // namespace

TcpPair::TcpPair()
{
    const int listener = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    if (listener < 0 || ::bind(listener, reinterpret_cast<sockaddr *>(&address), sizeof address) != 0
        || ::listen(listener, 1) != 0 || ::getsockname(listener, reinterpret_cast<sockaddr *>(&address), &length) != 0) {
        ADD_FAILURE() << "cannot listen on loopback";
        if (listener >= 0)
            ::close(listener);
        return;
    }
    client = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (client < 0 || ::connect(client, reinterpret_cast<sockaddr *>(&address), sizeof address) != 0)
        ADD_FAILURE() << "cannot connect on loopback";
    server = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
    ::close(listener);
    setNonBlocking(client);
    setNonBlocking(server);
}

TcpPair::~TcpPair()
{
    if (client >= 0)
        ::close(client);
    if (server >= 0)
        ::close(server);
}

Pipe::Pipe()
{
    int ends[2] = {-1, -1};
    if (::pipe2(ends, O_NONBLOCK | O_CLOEXEC) != 0)
        ADD_FAILURE() << "cannot create a pipe";
    readEnd = ends[0];
    writeEnd = ends[1];
}

Pipe::~Pipe()
{
    if (readEnd >= 0)
        ::close(readEnd);
    if (writeEnd >= 0)
        ::close(writeEnd);
}

void writeByte(int fd)
{
    const char byte = 'x';
    ASSERT_EQ(::write(fd, &byte, 1), 1);
}

void drain(int fd)
{
    char buffer[256];
    while (::read(fd, buffer, sizeof buffer) > 0) {
    }
}

} // namespace sy::test
