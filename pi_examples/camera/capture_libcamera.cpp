/* capture_libcamera.cpp - frames from libcamera, the camera stack of current
 * Raspberry Pi OS (Pi camera modules; USB webcams too). The only C++ of the
 * example, behind the C interface of capture.h: the first camera streams
 * into memory-mapped buffers; completed requests queue up in libcamera's
 * thread and each call hands out the newest one, requeueing the others. */
#include <sys/mman.h>

#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <libcamera/libcamera.h>
#include <libcamera/logging.h>

#include "capture.h"
#include "pixel_formats.h"
#include "tfpi.h"

namespace {

using namespace libcamera;

/* libcamera's formats (DRM names) and what the bytes are in memory, best first. */
struct FormatChoice {
    PixelFormat libcamera_format;
    pixel_format layout;
};
const FormatChoice kFormats[] = {
    {formats::BGR888, PIXEL_RGB24},    {formats::RGB888, PIXEL_BGR24},
    {formats::XBGR8888, PIXEL_RGBX32}, {formats::XRGB8888, PIXEL_BGRX32},
    {formats::YUYV, PIXEL_YUYV},       {formats::UYVY, PIXEL_UYVY},
    {formats::MJPEG, PIXEL_MJPEG},
};

/* One frame buffer's first plane, mapped for reading. */
struct MappedPlane {
    void *map_start;
    size_t map_length;
    const uint8_t *data;
};

class LibcameraCapture {
  public:
    explicit LibcameraCapture(const capture_options *options) : options_(options) {}
    ~LibcameraCapture();
    bool open(tfpi_status *status);
    capture_result next(tfpi_image *frame, tfpi_status *status);

  private:
    bool configure(tfpi_status *status);
    bool mapBuffers(tfpi_status *status);
    bool startStreaming(tfpi_status *status);
    void onRequestCompleted(Request *request);
    void requeue(Request *request);
    Request *waitForNewest(capture_result *result, tfpi_status *status);
    bool convert(const Request *request, tfpi_image *frame, tfpi_status *status);
    bool fail(tfpi_status *status, tfpi_code code, const char *what, int error = 0);

    const capture_options *options_;
    std::unique_ptr<CameraManager> manager_;
    std::shared_ptr<Camera> camera_;
    std::unique_ptr<CameraConfiguration> config_;
    std::unique_ptr<FrameBufferAllocator> allocator_;
    std::vector<std::unique_ptr<Request>> requests_;
    std::vector<MappedPlane> mapped_;
    std::string name_; /* "libcamera camera '<id>'", for messages */
    camera_buffer layout_ = {};
    int bad_frames_in_a_row_ = 0;
    Stream *stream_ = nullptr;
    bool acquired_ = false, started_ = false;
    std::mutex lock_;
    std::condition_variable completed_changed_;
    std::deque<Request *> completed_;
};

/* The C face: a capture whose first member lets capture.h's calls find us. */
struct Handle {
    capture base;
    LibcameraCapture *impl;
};

bool LibcameraCapture::fail(tfpi_status *status, tfpi_code code, const char *what, int error)
{
    const char *name = camera_ ? name_.c_str() : "libcamera";
    if (error)
        tfpi_status_set(status, code, "%s: %s: %s", name, what, strerror(-error));
    else
        tfpi_status_set(status, code, "%s: %s", name, what);
    return false;
}

bool LibcameraCapture::open(tfpi_status *status)
{
    /* libcamera logs to stderr by default; LIBCAMERA_LOG_LEVELS brings it back. */
    if (!getenv("LIBCAMERA_LOG_LEVELS"))
        logSetTarget(LoggingTargetNone);
    manager_ = std::make_unique<CameraManager>();
    int rc = manager_->start();
    if (rc < 0)
        return fail(status, TFPI_NOT_FOUND, "cannot start the camera manager", rc);
    if (manager_->cameras().empty())
        return fail(status, TFPI_NOT_FOUND,
                    "no camera found (is it connected, and listed by `rpicam-hello --list-cameras`?)");
    camera_ = manager_->cameras().front();
    name_ = "libcamera camera '" + camera_->id() + "'";
    rc = camera_->acquire();
    if (rc == -EBUSY)
        return fail(status, TFPI_IO_ERROR, "busy: another program is using the camera");
    if (rc < 0)
        return fail(status, TFPI_IO_ERROR, "cannot acquire", rc);
    acquired_ = true;
    return configure(status) && mapBuffers(status) && startStreaming(status);
}

/* The first of kFormats the camera accepts unchanged, at about the asked size. */
bool LibcameraCapture::configure(tfpi_status *status)
{
    /* A vector: libcamera 0.0.x takes one, later versions a Span made from it. */
    const std::vector<StreamRole> roles{StreamRole::Viewfinder};
    config_ = camera_->generateConfiguration(roles);
    if (!config_ || config_->size() != 1)
        return fail(status, TFPI_IO_ERROR, "no viewfinder stream configuration");
    StreamConfiguration &stream_config = config_->at(0);
    const FormatChoice *chosen = nullptr;
    for (const FormatChoice &choice : kFormats) {
        stream_config.pixelFormat = choice.libcamera_format;
        stream_config.size = Size(options_->width, options_->height);
        if (config_->validate() != CameraConfiguration::Invalid &&
            stream_config.pixelFormat == choice.libcamera_format) {
            chosen = &choice;
            break;
        }
    }
    if (!chosen)
        return fail(status, TFPI_UNIMPLEMENTED,
                    "the camera offers none of BGR888, RGB888, XBGR8888, XRGB8888, YUYV, UYVY, MJPEG");
    int rc = camera_->configure(config_.get());
    if (rc < 0)
        return fail(status, TFPI_IO_ERROR, "cannot configure", rc);
    stream_ = stream_config.stream();
    layout_.format = chosen->layout;
    layout_.width = static_cast<int>(stream_config.size.width);
    layout_.height = static_cast<int>(stream_config.size.height);
    layout_.stride = stream_config.stride;
    return true;
}

bool LibcameraCapture::mapBuffers(tfpi_status *status)
{
    allocator_ = std::make_unique<FrameBufferAllocator>(camera_);
    int rc = allocator_->allocate(stream_);
    if (rc < 0)
        return fail(status, TFPI_IO_ERROR, "cannot allocate frame buffers", rc);
    for (const std::unique_ptr<FrameBuffer> &buffer : allocator_->buffers(stream_)) {
        const FrameBuffer::Plane &plane = buffer->planes().front();
        size_t length = static_cast<size_t>(plane.offset) + plane.length;
        void *start = mmap(nullptr, length, PROT_READ, MAP_SHARED, plane.fd.get(), 0);
        if (start == MAP_FAILED)
            return fail(status, TFPI_IO_ERROR, "cannot map a frame buffer", -errno);
        mapped_.push_back({start, length, static_cast<const uint8_t *>(start) + plane.offset});
        std::unique_ptr<Request> request = camera_->createRequest(mapped_.size() - 1);
        if (!request || request->addBuffer(stream_, buffer.get()) < 0)
            return fail(status, TFPI_IO_ERROR, "cannot create capture requests");
        requests_.push_back(std::move(request));
    }
    return true;
}

bool LibcameraCapture::startStreaming(tfpi_status *status)
{
    camera_->requestCompleted.connect(this, &LibcameraCapture::onRequestCompleted);
    int rc = camera_->start();
    if (rc < 0)
        return fail(status, TFPI_IO_ERROR, "cannot start streaming", rc);
    started_ = true;
    for (std::unique_ptr<Request> &request : requests_)
        if ((rc = camera_->queueRequest(request.get())) < 0)
            return fail(status, TFPI_IO_ERROR, "cannot queue a capture request", rc);
    return true;
}

/* Runs in libcamera's thread. */
void LibcameraCapture::onRequestCompleted(Request *request)
{
    if (request->status() == Request::RequestCancelled)
        return;
    std::lock_guard<std::mutex> hold(lock_);
    completed_.push_back(request);
    completed_changed_.notify_one();
}

void LibcameraCapture::requeue(Request *request)
{
    request->reuse(Request::ReuseBuffers);
    camera_->queueRequest(request);
}

/* The newest completed request (the older ones go back to the camera), or
 * nullptr with *result set after a stop or the frame timeout. */
Request *LibcameraCapture::waitForNewest(capture_result *result, tfpi_status *status)
{
    std::deque<Request *> done;
    {
        std::unique_lock<std::mutex> hold(lock_);
        for (int waited_ms = 0; completed_.empty(); waited_ms += CAPTURE_WAIT_SLICE_MS) {
            if (*options_->stop) {
                *result = CAPTURE_STOPPED;
                return nullptr;
            }
            if (waited_ms >= CAPTURE_FRAME_TIMEOUT_MS) {
                tfpi_status_set(status, TFPI_IO_ERROR, "%s: no frame for %d s", name_.c_str(),
                         CAPTURE_FRAME_TIMEOUT_MS / 1000);
                *result = CAPTURE_ERROR;
                return nullptr;
            }
            completed_changed_.wait_for(hold, std::chrono::milliseconds(CAPTURE_WAIT_SLICE_MS));
        }
        done.swap(completed_);
    }
    Request *newest = done.back();
    done.pop_back();
    for (Request *stale : done)
        requeue(stale);
    return newest;
}

bool LibcameraCapture::convert(const Request *request, tfpi_image *frame, tfpi_status *status)
{
    const FrameBuffer *buffer = request->buffers().begin()->second;
    if (buffer->metadata().status != FrameMetadata::FrameSuccess) {
        tfpi_status_set(status, TFPI_IO_ERROR, "%s: the camera delivered damaged frames", name_.c_str());
        return false;
    }
    camera_buffer b = layout_;
    b.data = mapped_[request->cookie()].data;
    b.size = buffer->metadata().planes()[0].bytesused;
    return camera_buffer_to_rgb(&b, name_.c_str(), frame, status) == TFPI_OK;
}

capture_result LibcameraCapture::next(tfpi_image *frame, tfpi_status *status)
{
    for (;;) {
        capture_result result = CAPTURE_FRAME;
        Request *request = waitForNewest(&result, status);
        if (!request)
            return result;
        bool good = convert(request, frame, status);
        requeue(request);
        if (good) {
            bad_frames_in_a_row_ = 0;
            return CAPTURE_FRAME;
        }
        if (++bad_frames_in_a_row_ >= CAPTURE_MAX_BAD_FRAMES)
            return CAPTURE_ERROR;
    }
}

LibcameraCapture::~LibcameraCapture()
{
    if (started_)
        camera_->stop();
    if (camera_)
        camera_->requestCompleted.disconnect(this);
    for (const MappedPlane &plane : mapped_)
        munmap(plane.map_start, plane.map_length);
    requests_.clear();
    allocator_.reset();
    if (acquired_)
        camera_->release();
    camera_.reset();
    config_.reset();
    manager_.reset(); /* stops the camera manager */
}

capture_result handle_next(capture *self, tfpi_image *frame, tfpi_status *status)
{
    return reinterpret_cast<Handle *>(self)->impl->next(frame, status);
}

void handle_close(capture *self)
{
    Handle *handle = reinterpret_cast<Handle *>(self);
    delete handle->impl;
    delete handle;
}

} // namespace

extern "C" capture *capture_open_libcamera(const capture_options *options, tfpi_status *status)
{
    Handle *handle = nullptr;
    try {
        handle = new Handle{{handle_next, handle_close}, new LibcameraCapture(options)};
        if (handle->impl->open(status))
            return &handle->base;
    } catch (const std::exception &e) {
        tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "libcamera: %s", e.what());
    }
    if (handle)
        handle_close(&handle->base);
    return nullptr;
}
