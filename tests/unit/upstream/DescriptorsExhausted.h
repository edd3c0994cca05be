#pragma once
// DescriptorsExhausted: while it lives, this process cannot open another file descriptor
// (EMFILE): the soft open-file limit is lowered to what is open and every free number below it
// is taken. The destructor gives them back and restores the limit. Thread: the test's; nothing
// else may open descriptors meanwhile.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>
#include <vector>

namespace sy::upstream::test {

class DescriptorsExhausted {
public:
    DescriptorsExhausted()
    {
        if (::getrlimit(RLIMIT_NOFILE, &saved_) != 0) {
            ADD_FAILURE() << "getrlimit";
            return;
        }
        // Lower first, so that filling takes a few hundred descriptors at most.
        rlimit lowered = saved_;
        const int first = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
        if (first < 0) {
            ADD_FAILURE() << "cannot open /dev/null";
            return;
        }
        for (int fd = first; fd >= 0; fd = ::fcntl(first, F_DUPFD_CLOEXEC, 0)) {
            taken_.push_back(fd);
            if (taken_.size() == 1) {
                lowered.rlim_cur = rlim_t(fd) + 64;
                ::setrlimit(RLIMIT_NOFILE, &lowered);
            }
        }
    }
    ~DescriptorsExhausted()
    {
        for (const int fd : taken_)
            ::close(fd);
        ::setrlimit(RLIMIT_NOFILE, &saved_);
    }
    DescriptorsExhausted(const DescriptorsExhausted &) = delete;
    DescriptorsExhausted &operator=(const DescriptorsExhausted &) = delete;

private:
    rlimit saved_{};
    std::vector<int> taken_;
};

} // namespace sy::upstream::test
