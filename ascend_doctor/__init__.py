"""ascend-doctor: readiness checks for DeepSeek on Huawei Ascend NPU servers."""

__version__ = "0.1.0"
